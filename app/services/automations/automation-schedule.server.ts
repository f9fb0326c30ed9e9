import { AUTOMATIONS_QUEUE, createQueueIfMissing, enqueuePushMessage } from '#app/server/job-queue.server.ts'
import { logger } from '#app/server/logger.server.ts'
import {
  createDueOccasions,
  releaseDueAutomaticMessages,
  type ReleaseDecision,
  type TimeBasedKind,
} from '#models/automatic-messages.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import type PgBoss from 'pg-boss'

/**
 * The schedule of automatic messages (issue 19; docs/product/automations.md), run each minute by
 * pg-boss in any process: it makes the time-based occasions that came due ('reward waiting', 'we miss you'), then
 * releases every due automatic row (those and the welcomes pass-join.server.ts scheduled) through the owner's plan,
 * quiet hours and caps. Each holder's occasion is a row with a unique key, and rows are claimed `skip locked`, so
 * two processes running it at once make and send each occasion once. Scheduled broadcasts (kind 'message') are
 * not touched here.
 */
export const AUTOMATIONS_CRON = '* * * * *'
/** Rows made or claimed per statement: each batch is a short transaction. */
export const AUTOMATION_BATCH = 500
/**
 * An occasion due longer ago than this when the schedule first sees it is not made (a holder who saved the card
 * later, or a schedule stopped for days, gets no stale message); it also bounds each minute's scan by time.
 */
export const AUTOMATION_LOOKBACK_DAYS = 3
const TIME_BASED_KINDS: TimeBasedKind[] = ['reward_waiting', 'we_miss_you']

export type AutomationRun = {
  created: Record<TimeBasedKind, number>
  released: Record<ReleaseDecision, number>
  /** The messages queued, each asked of the push job after its batch committed. */
  queued: string[]
}

/** One run of the schedule as of `now` (the job passes the clock; tests a fixed one). */
export async function runAutomations({
  now,
  batch = AUTOMATION_BATCH,
}: {
  now: Date
  batch?: number
}): Promise<AutomationRun> {
  const created = { reward_waiting: 0, we_miss_you: 0 }
  for (const kind of TIME_BASED_KINDS) {
    for (;;) {
      const { found, made } = await createDueOccasions({
        kind,
        now,
        limit: batch,
        lookbackDays: AUTOMATION_LOOKBACK_DAYS,
      })
      created[kind] += made
      // A full batch may have met another process's rows (made < found): what is left is found next time round.
      if (found < batch) break
    }
  }
  const released: Record<ReleaseDecision, number> = {
    send: 0,
    quiet: 0,
    plan_ended: 0,
    daily_cap: 0,
    weekly_cap: 0,
    no_device: 0,
    turned_off: 0,
  }
  const queued: string[] = []
  for (;;) {
    const rows = await withTransaction((transaction) => releaseDueAutomaticMessages(transaction, { now, limit: batch }))
    if (!rows.length) break
    for (const row of rows) {
      released[row.decision] += 1
      if (row.decision === 'send') queued.push(row.id)
    }
    // After the commit: the push job must find the rows queued. Should this fail, the resume job sends them.
    for (const row of rows) if (row.decision === 'send') await enqueuePushMessage(row.id)
  }
  return { created, released, queued }
}

/** Registers the schedule's queue and its minute cron on a started pg-boss (startJobs calls it). */
export async function registerAutomationJobs(boss: PgBoss) {
  // 'short': at most one waiting run; two running at once (two processes) are harmless.
  await createQueueIfMissing(boss, AUTOMATIONS_QUEUE, {
    name: AUTOMATIONS_QUEUE,
    policy: 'short',
    expireInSeconds: 10 * 60,
  })
  await boss.schedule(AUTOMATIONS_QUEUE, AUTOMATIONS_CRON, {}, { tz: 'UTC' })
  await boss.work(AUTOMATIONS_QUEUE, async () => {
    const run = await runAutomations({ now: new Date() })
    if (run.queued.length || Object.values(run.created).some(Boolean)) {
      logger.info({ created: run.created, released: run.released }, 'automatic messages')
    }
  })
}
