import { enqueuePushMessage } from '#app/server/job-queue.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { type Audience } from '#app/utils/audience.ts'
import { totalReach } from '#app/utils/push-channels.ts'
import { countAudienceReach } from '#models/holder-audience.server.ts'
import { raiseNotice } from '#models/notice.server.ts'
import {
  cancelOwnedScheduled,
  claimScheduledBroadcast,
  listDueScheduledBroadcasts,
  queueScheduledBroadcast,
  scheduleOwnedDraft,
  skipScheduledBroadcast,
  type CancelOutcome,
  type DueBroadcast,
  type ScheduleOutcome,
} from '#models/scheduled-broadcast.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import { queueWithQuota } from './push-send.server.ts'
import { armScheduledBroadcastTimer } from './scheduled-broadcast-timer.server.ts'

/**
 * Scheduled broadcasts (docs/product/automations.md "Scheduled broadcasts";
 * docs/decisions/043-scheduled-broadcasts-and-audiences.md). Scheduling takes no quota: the row waits as 'scheduled'
 * with its due time and audience. At that time it is released: the quota is taken then, as a Send takes it
 * (queueWithQuota, on the owner's locked subscription row), and the message is queued and sent; with none left, or
 * the plan over, it is skipped and the owner gets a notice. Rows are released by the timer each app process keeps
 * for the next due one and by a job every minute (overdue ones after a restart), claimed with
 * `for update skip locked`, so two processes release each once.
 */

/** Schedules the owner's draft; the timer of this process learns of it at once. */
export async function scheduleOwnerBroadcast(input: {
  ownerId: string
  cardId: string
  notificationId: string
  scheduledFor: Date
  audience: Audience
}): Promise<ScheduleOutcome> {
  const outcome = await scheduleOwnedDraft(input)
  if (outcome === 'scheduled') armScheduledBroadcastTimer()
  return outcome
}

/** Cancels the owner's scheduled message while it has not gone out. */
export async function cancelOwnerBroadcast(input: {
  ownerId: string
  cardId: string
  notificationId: string
}): Promise<CancelOutcome> {
  const outcome = await cancelOwnedScheduled(input)
  if (outcome?.cancelled) armScheduledBroadcastTimer()
  return outcome
}

type Released = 'queued' | 'skipped' | 'empty' | null

/**
 * Releases one due broadcast, if still scheduled and no other process holds it: in one transaction on the owner's
 * locked subscription row (taken before the message's row, as a Send does), it takes the quota and queues it, or
 * skips it with a notice. A broadcast whose audience reaches nobody then goes out without taking the quota and is
 * done at once with 0 (the owner's usual "reached 0 holders" notice says so). The delivery is asked for after the
 * commit.
 */
async function releaseScheduledBroadcast(due: DueBroadcast, now: Date): Promise<Released> {
  const released = await withTransaction(async (transaction): Promise<Released> => {
    let outcome: Released = null
    const refusal = await queueWithQuota(
      { ownerId: due.userId, now },
      async (source) => {
        if (!(await claimScheduledBroadcast(due.id, transaction))) return false
        const { reach } = await countAudienceReach(
          { cardId: due.cardId, ownerId: due.userId, audience: due.audience },
          transaction,
        )
        const recipients = totalReach(reach)
        outcome = recipients === 0 ? 'empty' : 'queued'
        await queueScheduledBroadcast(
          { notificationId: due.id, now, source: recipients === 0 ? null : source, recipients },
          transaction,
        )
        // A broadcast that reaches nobody takes nothing: the additional quota is spent only for a queued one.
        return recipients > 0
      },
      transaction,
    )
    if (!refusal) return outcome
    if (!(await claimScheduledBroadcast(due.id, transaction))) return null
    await skipScheduledBroadcast({ notificationId: due.id, reason: 'no_quota' }, transaction)
    const why = refusal === 'no_quota' ? 'no messages were left this month' : 'your plan has ended'
    await raiseNotice(
      {
        userId: due.userId,
        kind: 'push_finished',
        message: `Your scheduled message "${due.title}" was not sent because ${why}.`.slice(0, 300),
        link: '/account/plan',
        dedupeKey: `push_skipped:${due.id}`,
      },
      transaction,
    )
    return 'skipped'
  })
  if (released === 'queued' || released === 'empty') await enqueuePushMessage(due.id)
  return released
}

/**
 * Releases every broadcast due at `now` (oldest first, a page at a time); answers the ids it queued and skipped.
 * Safe to run in several processes at once: each row is released by one.
 */
export async function releaseDueBroadcasts({ now = new Date(), limit = 100 }: { now?: Date; limit?: number } = {}) {
  const queued: string[] = []
  const skipped: string[] = []
  for (;;) {
    const due = await listDueScheduledBroadcasts(now, limit)
    let progressed = false
    for (const row of due) {
      const outcome = await releaseScheduledBroadcast(row, now).catch((err: unknown) => {
        logger.error({ err, notificationId: row.id }, 'scheduled message not released; the next tick retries')
        return null
      })
      if (outcome === 'queued' || outcome === 'empty') queued.push(row.id)
      if (outcome === 'skipped') skipped.push(row.id)
      if (outcome) progressed = true
    }
    // Another process holds the rest (skip locked), or a failure repeats: the next tick takes them.
    if (due.length < limit || !progressed) return { queued, skipped }
  }
}
