import { getSequelize } from '#app/server/db.server.ts'
import { applyDueTransitions } from './billing.server.ts'
import { listSubscriptionsWithDueTransitions } from '#models/subscription.server.ts'

const DAY_MS = 24 * 60 * 60 * 1000
export const ENDING_NOTICE_DAYS = 3

/**
 * The scheduled job: writes the transitions time has made due (pages compute them on every read already, so this
 * keeps the stored status true for admins' filters and queries) and raises the "ending in 3 days" notices.
 * Idempotent: running it twice, or after a restart, changes nothing more.
 */
export async function runPlanHousekeeping(now = new Date()) {
  let applied = 0
  for (;;) {
    const due = await listSubscriptionsWithDueTransitions(now)
    for (const { userId } of due) {
      await applyDueTransitions(userId, now)
      applied += 1
    }
    if (due.length < 500) break
  }
  const notices = await raiseEndingNotices(now)
  return { applied, notices }
}

/** One notice per subscription and end date, 3 days ahead: a trial ending, a plan renewing, a cancelled plan ending. */
async function raiseEndingNotices(now: Date): Promise<number> {
  const horizon = new Date(now.getTime() + ENDING_NOTICE_DAYS * DAY_MS)
  const [rows] = (await getSequelize().query(
    `insert into notices (user_id, kind, message, link, dedupe_key)
     select s.user_id, 'trial_ending',
            'Your free trial ends on ' || to_char(s.trial_ends_at at time zone 'UTC', 'FMDD FMMonth YYYY') ||
              '. Choose a plan to keep sending push messages.',
            '/account/tariffs', 'trial-ending:' || s.id
       from subscriptions s where s.status = 'trial' and s.trial_ends_at > :now and s.trial_ends_at <= :horizon
     union all
     select s.user_id, 'plan_ending',
            'Your ' || t.name || ' plan renews on ' || to_char(s.period_ends_at at time zone 'UTC', 'FMDD FMMonth YYYY') ||
              ': we will send you the invoice then.',
            '/account/plan', 'renewal:' || s.id || ':' || extract(epoch from s.period_ends_at)::bigint
       from subscriptions s join tariffs t on t.id = s.tariff_id
       where s.status = 'active' and s.period_ends_at > :now and s.period_ends_at <= :horizon
     union all
     select s.user_id, 'plan_ending',
            'Your ' || t.name || ' plan ends on ' || to_char(s.period_ends_at at time zone 'UTC', 'FMDD FMMonth YYYY') ||
              '. Choose a plan to keep your access.',
            '/account/tariffs', 'ending:' || s.id || ':' || extract(epoch from s.period_ends_at)::bigint
       from subscriptions s join tariffs t on t.id = s.tariff_id
       where s.status = 'cancelled' and s.period_ends_at > :now and s.period_ends_at <= :horizon
     on conflict (user_id, dedupe_key) do nothing
     returning id`,
    { replacements: { now, horizon } },
  )) as [unknown[], unknown]
  return rows.length
}
