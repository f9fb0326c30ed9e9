import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { CAPPED_KINDS, QUIET_HOURS_KINDS } from '#app/utils/automations.ts'
import { GRACE_DAYS, TRIAL_DAYS } from '#app/utils/plan-status.ts'
import { rewardEarnedSql } from './loyalty-scheme.server.ts'

/**
 * The automatic messages' statements (issue 19; docs/product/automations.md; the rules in
 * app/services/automations/automation-schedule.server.ts and app/services/push/stamp-push.server.ts). Each holder's
 * occasion is one notifications row with a key unique per pass (`occasion`): inserts say `on conflict do nothing`,
 * so two processes never make one twice. Everything that depends on the owner's plan, the caps and quiet hours is
 * decided in SQL beside the rows, in the owner's zone (users.time_zone), so a batch of any size is one statement.
 */

const list = (values: readonly string[]) => `(${values.map((value) => `'${value}'`).join(', ')})`
/** The kinds that count toward the caps, written as the partial index notifications_pass_automatic_idx has them. */
const CAPPED = list(CAPPED_KINDS)
const QUIET = list(QUIET_HOURS_KINDS)
/** A message "went out" once queued, whatever became of its deliveries. */
const WENT_OUT = list(['queued', 'sending', 'done', 'failed'])

/**
 * Whether the owner has access at `moment` (an SQL timestamptz), exactly as planState(...).subActiveFlag computes it
 * from the stored row (trial, active until its period and the grace days after, cancelled until its end,
 * waiting_payment until its access end). Needs `s` (subscriptions, left joined on the owner) and `u` (users): an
 * owner without a row has the trial ensureOwnerSubscription would give, from the account's creation.
 */
export const ownerHasAccessSql = (moment: string) => `coalesce(case
    when s.id is null then u.created_at + make_interval(days => ${TRIAL_DAYS}) > ${moment}
    when s.status = 'trial' then s.trial_ends_at > ${moment}
    when s.status = 'active'
      then s.period_ends_at is null or s.period_ends_at + make_interval(days => ${GRACE_DAYS}) > ${moment}
    when s.status = 'cancelled' then s.period_ends_at is null or s.period_ends_at > ${moment}
    when s.status = 'waiting_payment' then s.access_ends_at > ${moment}
    else false end, false)`

/** The pass has a device on some channel: a web push subscription, an Apple Wallet, or a saved Google Wallet pass. */
export const anyDeviceSql = (pass: string) => `(exists (select 1 from push_subscriptions ds where ds.pass_id = ${pass})
    or exists (select 1 from apple_registrations dr where dr.pass_id = ${pass})
    or exists (select 1 from google_wallet_objects dg where dg.pass_id = ${pass} and dg.state = 'active'))`

/** The pass has a web push subscription (the stamp push's only channel). */
export const webDeviceSql = (pass: string) => `exists (select 1 from push_subscriptions ws where ws.pass_id = ${pass})`

/**
 * `cross join lateral … cap` with `cap.today` and `cap.week`: the pass's capped messages that went out on the local
 * calendar day (in `zone`) of `moment`, and on that day and the 6 before it (docs/decisions/042-automatic-messages.md).
 */
export const capCountsSql = (pass: string, moment: string, zone: string) => {
  const day = `((${moment}) at time zone ${zone})::date`
  return `cross join lateral (
    select count(*) filter (where x.queued_at >= (${day}::timestamp at time zone ${zone}))::int as today,
           count(*)::int as week
    from notifications x
    where x.pass_id = ${pass} and x.kind in ${CAPPED} and x.status in ${WENT_OUT}
      and x.queued_at >= ((${day} - 6)::timestamp at time zone ${zone})
      and x.queued_at < ((${day} + 1)::timestamp at time zone ${zone})
  ) cap`
}

/** The skipped reason over a cap (null when under both); needs `cap` and the card `c`. */
const CAP_REASON = `case when cap.today >= c.automatic_daily_cap then 'daily_cap'
    when cap.week >= c.automatic_weekly_cap then 'weekly_cap' end`

const NOW = 'cast(:now as timestamptz)'

/**
 * Schedules the welcome of a pass that just joined, when its card has the welcome on (and turned on before the
 * join): due `delaySeconds` after the join. Answers the row's id, or null.
 */
export async function scheduleWelcome({ passId, delaySeconds }: { passId: string; delaySeconds: number }) {
  const [row] = await getSequelize().query<{ id: string }>(
    `insert into notifications
       (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, scheduled_for, occasion)
     select c.id, c.user_id, p.id, 'welcome', a.title, a.body, 'scheduled', false,
            p.created_at + make_interval(secs => :delaySeconds), 'welcome'
     from passes p join cards c on c.id = p.card_id
     join card_automations a on a.card_id = c.id and a.kind = 'welcome' and a.enabled
     where p.id = :passId and p.created_at >= coalesce(a.enabled_at, a.updated_at)
     on conflict (pass_id, occasion) where occasion is not null do nothing
     returning id`,
    { replacements: { passId, delaySeconds }, type: QueryTypes.SELECT },
  )
  return row?.id ?? null
}

/** What each time-based kind waits for: the moment its N days count from, the pass rows it reads, its key. */
const TIME_BASED = {
  // A reward earned (the earning stamp of the open round, pass_rounds.earned_at) and not redeemed.
  reward_waiting: {
    passes: `select r.pass_id as id, r.earned_at as since, 'reward_waiting:' || r.round as occasion
      from pass_rounds r join passes rp on rp.id = r.pass_id and rp.rewards_redeemed = r.round
      where r.card_id = c.id and r.earned_at <= ${NOW} - make_interval(days => a.days)
        and r.earned_at >= horizon.since - make_interval(days => a.days) and ${rewardEarnedSql('rp', 'c')}`,
  },
  // No visit since passes.last_visit_at (a stamp or a redemption; the join when none): once per absence.
  we_miss_you: {
    passes: `select wp.id, wp.last_visit_at as since,
        'we_miss_you:' || floor(extract(epoch from wp.last_visit_at) * 1000)::bigint as occasion
      from passes wp
      where wp.card_id = c.id and wp.last_visit_at <= ${NOW} - make_interval(days => a.days)
        and wp.last_visit_at >= horizon.since - make_interval(days => a.days)`,
  },
} as const
export type TimeBasedKind = keyof typeof TIME_BASED

/**
 * Makes the occasions of a time-based kind that are due by `now`, as 'scheduled' rows due at their moment (the
 * release decides quiet hours and caps), at most `limit` of them. Only cards whose owner
 * turned the kind on and has access, only passes with a device, and only occasions due at or after the moment the
 * kind was turned on (so turning it on never floods old occasions) and within `lookbackDays` of `now` (so the scan
 * is bounded by time, through passes (card_id, last_visit_at) and pass_rounds (card_id, earned_at)). Answers how
 * many it found (at most `limit`: when fewer, none is left) and how many it made (the rest another process made at
 * the same moment).
 */
export async function createDueOccasions({
  kind,
  now,
  limit,
  lookbackDays,
}: {
  kind: TimeBasedKind
  now: Date
  limit: number
  lookbackDays: number
}): Promise<{ found: number; made: number }> {
  const [row] = await getSequelize().query<{ found: number; made: number }>(
    `with candidates as materialized (
       select c.id as card_id, c.user_id, due.id as pass_id, a.kind, a.title, a.body,
              due.since + make_interval(days => a.days) as due_at, due.occasion
       from card_automations a
       join cards c on c.id = a.card_id and c.status = 'active'
       join users u on u.id = c.user_id
       left join subscriptions s on s.user_id = c.user_id
       cross join lateral (select greatest(coalesce(a.enabled_at, a.updated_at),
                                           ${NOW} - make_interval(days => :lookbackDays)) as since) horizon
       cross join lateral (${TIME_BASED[kind].passes}) due
       where a.kind = :kind and a.enabled and ${ownerHasAccessSql(NOW)}
         and not exists (select 1 from notifications o where o.pass_id = due.id and o.occasion = due.occasion)
         and ${anyDeviceSql('due.id')}
       limit :limit
     ), made as (
       insert into notifications
         (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, scheduled_for, occasion)
       select card_id, user_id, pass_id, kind, title, body, 'scheduled', false, due_at, occasion from candidates
       on conflict (pass_id, occasion) where occasion is not null do nothing
       returning 1
     )
     select (select count(*) from candidates)::int as found, (select count(*) from made)::int as made`,
    { replacements: { kind, now, limit, lookbackDays }, type: QueryTypes.SELECT },
  )
  return row!
}

export type ReleaseDecision = 'send' | 'quiet' | 'plan_ended' | 'daily_cap' | 'weekly_cap' | 'no_device' | 'turned_off'

/**
 * Releases due automatic rows (status 'scheduled', any kind but a broadcast's 'message'), at most `limit` claimed in
 * `transaction`, each with its pass row, `skip locked`: another process takes other rows, and a stamp on the pass
 * (which locks it) and its 'one stamp to go' never race the caps. Of a pass's rows claimed together only the first is
 * decided (the caps must see it before the next). Decisions, at `now`: the owner turned the kind off since →
 * cancelled; the owner's plan ended → skipped 'plan_ended'; the pass has no device left → cancelled (nothing to
 * send, nothing counted); in quiet hours (kinds
 * that wait them) → still scheduled, due when they end (local wall time, so a change of clocks is taken care of);
 * over the daily or weekly cap → skipped with that reason; else queued at `now`. Answers each decided row.
 */
export async function releaseDueAutomaticMessages(
  transaction: Transaction,
  { now, limit }: { now: Date; limit: number },
): Promise<{ id: string; decision: ReleaseDecision }[]> {
  const local = `(${NOW} at time zone u.time_zone)`
  const minute = `(extract(hour from ${local}) * 60 + extract(minute from ${local}))::int`
  const inQuiet = `(c.quiet_start <> c.quiet_end and case when c.quiet_start < c.quiet_end
      then ${minute} >= c.quiet_start and ${minute} < c.quiet_end
      else ${minute} >= c.quiet_start or ${minute} < c.quiet_end end)`
  // Quiet hours past midnight (21:00–09:00) entered in the evening end on the next local day.
  const quietEnd = `(((${local})::date + case when c.quiet_start > c.quiet_end and ${minute} >= c.quiet_start
      then 1 else 0 end)::timestamp + make_interval(mins => c.quiet_end)) at time zone u.time_zone`
  const claimed = await getSequelize().query<{ id: string }>(
    `select n.id from notifications n join passes p on p.id = n.pass_id
     where n.status = 'scheduled' and n.kind <> 'message' and n.scheduled_for <= ${NOW}
     order by n.scheduled_for, n.id limit :limit
     for update of n skip locked for no key update of p skip locked`,
    { replacements: { now, limit }, type: QueryTypes.SELECT, transaction },
  )
  if (!claimed.length) return []
  // The decision is a second statement on purpose: in READ COMMITTED its snapshot is taken after the locks above are
  // held, so the caps count every message another process queued for these passes before it let them go. Claiming
  // and counting in one statement counted from a snapshot older than the lock: two processes each sent one
  // message to a pass whose daily cap is 1 (automations-concurrency.test.ts, on the PostgreSQL server).
  return getSequelize().query<{ id: string; decision: ReleaseDecision }>(
    `with claimed as (
       select n.id, n.pass_id, n.scheduled_for from notifications n where n.id in (:ids)
     ), firsts as (
       select id from (
         select id, row_number() over (partition by pass_id order by scheduled_for, id) as rank from claimed
       ) ranked where rank = 1
     ), decided as (
       select n.id,
              case when not coalesce(a.enabled, false) then 'turned_off'
                   when not ${ownerHasAccessSql(NOW)} then 'plan_ended'
                   when not ${anyDeviceSql('n.pass_id')} then 'no_device'
                   when n.kind in ${QUIET} and ${inQuiet} then 'quiet'
                   when n.kind in ${CAPPED} then coalesce(${CAP_REASON}, 'send')
                   else 'send' end as decision,
              ${quietEnd} as quiet_end
       from firsts f join notifications n on n.id = f.id
       join cards c on c.id = n.card_id join users u on u.id = c.user_id
       left join subscriptions s on s.user_id = c.user_id
       left join card_automations a on a.card_id = n.card_id and a.kind = n.kind
       ${capCountsSql('n.pass_id', NOW, 'u.time_zone')}
     )
     update notifications n set
       status = case d.decision when 'send' then 'queued' when 'quiet' then 'scheduled' when 'no_device' then 'cancelled'
                  when 'turned_off' then 'cancelled'
                  else 'skipped' end,
       skipped_reason = case when d.decision in ('plan_ended', 'daily_cap', 'weekly_cap') then d.decision end,
       scheduled_for = case when d.decision = 'quiet' then d.quiet_end else n.scheduled_for end,
       queued_at = case when d.decision = 'send' then ${NOW} end,
       updated_at = now()
     from decided d where n.id = d.id
     returning n.id, d.decision`,
    { replacements: { now, ids: claimed.map((row) => row.id) }, type: QueryTypes.SELECT, transaction },
  )
}
