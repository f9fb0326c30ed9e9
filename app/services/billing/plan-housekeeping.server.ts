import { listSubscriptionsWithDueTransitions, raiseEndingNotices } from '#models/subscription.server.ts'
import { applyDueTransitions } from './billing.server.ts'

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
  const notices = await raiseDueEndingNotices(now)
  return { applied, notices }
}

/** One notice per subscription and end date, 3 days ahead: a trial ending, a plan renewing, a cancelled plan ending. */
function raiseDueEndingNotices(now: Date): Promise<number> {
  return raiseEndingNotices({ now, horizon: new Date(now.getTime() + ENDING_NOTICE_DAYS * DAY_MS) })
}
