import { reconcileStaffSeats } from '#app/services/team/team.server.ts'
import { formatDate } from '#app/utils/plan-format.ts'
import { raiseNotices } from '#models/notice.server.ts'
import { listOwnersWithSuspendedStaff } from '#models/staff.server.ts'
import {
  listSubscriptionsEndingBy,
  listSubscriptionsWithDueTransitions,
  type EndingSubscription,
} from '#models/subscription.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
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
  // An invitation that ran out frees its seat: a member suspended for want of one gets it back.
  let refitted = 0
  for (let afterOwnerId: string | null = null; ;) {
    const owners = await listOwnersWithSuspendedStaff({ afterOwnerId, limit: 500 })
    for (const ownerId of owners) {
      const { restored } = await withTransaction((transaction) => reconcileStaffSeats(ownerId, transaction))
      refitted += restored.length
    }
    if (owners.length < 500) break
    afterOwnerId = owners.at(-1)!
  }
  return { applied, notices, refitted }
}

/** What the notice says and links to, for each kind of end. */
function endingNotice({ ending, tariffName, endsAt }: EndingSubscription) {
  const date = formatDate(endsAt)
  if (ending === 'trial') {
    return {
      kind: 'trial_ending' as const,
      message: `Your free trial ends on ${date}. Choose a plan to keep sending push messages.`,
      link: '/account/tariffs',
    }
  }
  if (ending === 'renewal') {
    return {
      kind: 'plan_ending' as const,
      message: `Your ${tariffName} plan renews on ${date}: we will send you the invoice then.`,
      link: '/account/plan',
    }
  }
  return {
    kind: 'plan_ending' as const,
    message: `Your ${tariffName} plan ends on ${date}. Choose a plan to keep your access.`,
    link: '/account/tariffs',
  }
}

/** One notice per subscription and end date, 3 days ahead: a trial ending, a plan renewing, a cancelled plan ending. */
async function raiseDueEndingNotices(now: Date): Promise<number> {
  const ending = await listSubscriptionsEndingBy({
    now,
    horizon: new Date(now.getTime() + ENDING_NOTICE_DAYS * DAY_MS),
  })
  return raiseNotices(
    ending.map((subscription) => ({
      userId: subscription.userId,
      dedupeKey: subscription.dedupeKey,
      ...endingNotice(subscription),
    })),
  )
}
