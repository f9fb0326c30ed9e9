import { createQueueIfMissing, SCHEDULED_BROADCAST_QUEUE } from '#app/server/job-queue.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { nextScheduledBroadcastAt } from '#models/scheduled-broadcast.server.ts'
import { currentScheduledBroadcastTimer, setScheduledBroadcastTimer } from './scheduled-broadcast-timer.server.ts'
import { releaseDueBroadcasts } from './scheduled-broadcasts.server.ts'
import type PgBoss from 'pg-boss'

/** The longest a process's timer waits before looking again (and releasing anything overdue). */
const TICK_MS = 60_000
/** After a release, a row still overdue (another process holds it, or it failed) is looked at again this soon. */
const OVERDUE_RETRY_MS = 1_000
/**
 * The timer fires this long after a due time, not at it: the clock the release compares with (Date.now() when it
 * runs) can read a millisecond before the time the timer waited for, and a message not yet due then waited out
 * OVERDUE_RETRY_MS (seen: released 1,001 ms late).
 */
const DUE_MARGIN_MS = 5

/**
 * The release of scheduled broadcasts at their time (docs/product/automations.md, "Scheduled broadcasts": the first
 * message leaves within 1 s of it). Each app process keeps a timer for the next due broadcast: armed at start (so
 * anything overdue after a restart goes at once), re-armed when one is scheduled or cancelled in this process and at
 * least every minute (so one scheduled in another process is seen within a minute, and fires on time when scheduled
 * further ahead). A pg-boss cron job every minute releases overdue rows too. Rows are claimed one by one with `for
 * update skip locked`, so however many processes fire, each row is released once. Answers the stop for startJobs.
 */
export async function registerScheduledBroadcastJobs(boss: PgBoss): Promise<() => void> {
  await createQueueIfMissing(boss, SCHEDULED_BROADCAST_QUEUE, { name: SCHEDULED_BROADCAST_QUEUE, policy: 'short' })
  await boss.schedule(SCHEDULED_BROADCAST_QUEUE, '* * * * *', {}, { tz: 'UTC' })
  await boss.work(SCHEDULED_BROADCAST_QUEUE, async () => {
    const { queued, skipped } = await releaseDueBroadcasts()
    if (queued.length || skipped.length) logger.info({ queued, skipped }, 'scheduled messages released')
  })
  return startScheduledBroadcastTimer()
}

function startScheduledBroadcastTimer(): () => void {
  let handle: NodeJS.Timeout | null = null
  let stopped = false
  let generation = 0

  const setTimer = (waitMs: number) => {
    if (handle) clearTimeout(handle)
    handle = setTimeout(() => void tick(), Math.min(Math.max(0, waitMs), TICK_MS))
    handle.unref()
  }

  // The latest call wins: an older look at the next due time that answers late is dropped.
  const arm = (afterRelease = false) => {
    const mine = ++generation
    nextScheduledBroadcastAt().then(
      (next) => {
        if (stopped || mine !== generation) return
        const wait = next ? next.getTime() - Date.now() : TICK_MS
        setTimer(afterRelease && wait <= 0 ? OVERDUE_RETRY_MS : wait + DUE_MARGIN_MS)
      },
      (err: unknown) => {
        if (stopped || mine !== generation) return
        logger.warn({ err }, 'next scheduled message not read; looking again in a minute')
        setTimer(TICK_MS)
      },
    )
  }

  async function tick() {
    handle = null
    try {
      const { queued, skipped } = await releaseDueBroadcasts()
      if (queued.length || skipped.length) logger.info({ queued, skipped }, 'scheduled messages released')
    } catch (err) {
      logger.warn({ err }, 'scheduled messages not released; the next tick retries')
    }
    if (!stopped) arm(true)
  }

  const own = { arm: () => arm() }
  setScheduledBroadcastTimer(own)
  arm()
  return () => {
    stopped = true
    if (handle) clearTimeout(handle)
    if (currentScheduledBroadcastTimer() === own) setScheduledBroadcastTimer(null)
  }
}
