import { logger } from '#app/server/logger.server.ts'
import {
  deliverChunk,
  prepareFirstChunk,
  prepareNotification,
  PUSH_CONCURRENCY,
  type ChunkRange,
} from './push-delivery.server.ts'

/**
 * A message starts in the process that queued it (docs/decisions/041-push-fan-out-speed.md). pg-boss hands a job to
 * a worker when that worker next looks (every 0.5 s at best), so a message that waited for a job left about 1 s after
 * Send. Here the process that took the Send (or the stamp, or found a scheduled message due) makes the deliveries at
 * once, sends the first chunk itself, and queues every other chunk as a job as before, so other processes share a
 * large message and a crash loses nothing (the rows, their leases and the resume job of
 * docs/decisions/017-push-delivery.md are unchanged; a chunk sent here that fails is queued as a job then). This
 * process's own chunk workers are woken rather than left to their next look; a job for a chunk being sent here (the
 * resume job's) is completed at once instead of holding a worker to find nothing to claim.
 */

/**
 * Requests in flight that chunks sent here (not by a chunk job) may have at once: one large message's first chunk
 * and the small messages (a stamp's push) beside it. Beyond it a chunk is left to the jobs. With the chunk workers'
 * CHUNK_WORKERS × PUSH_CONCURRENCY this bounds what a killed process had sent but not recorded.
 */
export const LOCAL_IN_FLIGHT = 2 * PUSH_CONCURRENCY

export type DispatchQueue = {
  /** Queues one job per chunk (one statement; a chunk whose job already waits is skipped). */
  queueChunks: (ranges: ChunkRange[]) => Promise<unknown>
  /** Queues the chunk again for when its later retries are due. */
  queueChunkLater: (range: ChunkRange, inMs: number) => Promise<unknown>
  /** Has this process's chunk workers look for jobs now. */
  wakeChunkWorkers: () => void
  /** The message queued wallet updates with its deliveries: ask for them to be sent. */
  sendWalletUpdates: () => Promise<unknown>
  chunkDelivered?: (range: ChunkRange, sent: number) => void
}

const chunkKey = (range: ChunkRange) => `${range.notificationId}:${range.fromId}`

/** Ids in the range: its most rows, hence its most requests in flight (a stamp's push: one). */
const rangeSize = (range: ChunkRange) => Number(BigInt(range.toId) - BigInt(range.fromId) + 1n)

export function createPushDispatcher(queue: DispatchQueue) {
  /** Chunks being sent here now, with the requests in flight each may have. */
  const local = new Map<string, number>()
  let inFlight = 0
  const running = new Set<Promise<void>>()

  /** Sends one chunk in this process; should that fail (the database went away), the chunk's job takes it up. */
  async function runHere(range: ChunkRange, slots: number, firstSent?: () => void) {
    try {
      const { sent, retryLaterInMs } = await deliverChunk(range, { firstSent })
      logger.info({ ...range, sent, retryLaterInMs }, 'push chunk delivered')
      queue.chunkDelivered?.(range, sent)
      if (retryLaterInMs !== null) await queue.queueChunkLater(range, retryLaterInMs)
    } catch (err) {
      logger.warn({ err, ...range }, 'push chunk not finished here; queued as a job')
      // Failing too, the resume job asks again for every unfinished message within a minute.
      await queue.queueChunks([range]).catch(() => {})
    } finally {
      local.delete(chunkKey(range))
      inFlight -= slots
    }
  }

  /**
   * Makes the message's deliveries, queues its chunk jobs and wakes this process's workers; with `sendFirst`, sends
   * its first chunk here meanwhile (when LOCAL_IN_FLIGHT allows). Resolves when that chunk is sent.
   */
  async function dispatch(
    notificationId: string,
    { sendFirst = true, onStarted }: { sendFirst?: boolean; onStarted?: () => void } = {},
  ) {
    const started = performance.now()
    let here: Promise<void> | undefined
    const sendHere = (range: ChunkRange, firstSent?: () => void) => {
      const slots = Math.min(rangeSize(range), PUSH_CONCURRENCY)
      if (local.has(chunkKey(range)) || inFlight + slots > LOCAL_IN_FLIGHT) return false
      local.set(chunkKey(range), slots)
      inFlight += slots
      here = runHere(range, slots, firstSent)
      const tracked = here
      running.add(tracked)
      void tracked.then(() => running.delete(tracked))
      return true
    }
    try {
      // A broadcast's first rows are made ahead of the rest and start at once (a large audience's rows take a while).
      const early = sendFirst ? await prepareFirstChunk(notificationId) : null
      let firstSent = () => {}
      const firstAnswer = new Promise<void>((resolve) => (firstSent = resolve))
      const sentEarly = early ? sendHere(early, firstSent) : false
      if (sentEarly) {
        // The rest of a large audience's rows is one long statement, and the caller may have more to ask (the Send
        // counts the audience): on the embedded database, which runs in this process, such a statement holds the
        // event loop, and the first requests with it. They go first (a push service that hangs: 300 ms at most).
        await Promise.race([firstAnswer, here, new Promise((resolve) => setTimeout(resolve, 300).unref())])
        onStarted?.()
      }
      const rest = await prepareNotification(notificationId, early ? { after: early.toId } : {})
      // A chunk this process could not take now (LOCAL_IN_FLIGHT) is a chunk job like the others.
      let jobs = early && !sentEarly ? [early, ...rest] : rest
      // The first request leaves before the other chunks' jobs are stored: they are for other processes and a crash.
      if (!here && sendFirst && jobs[0] && sendHere(jobs[0])) jobs = jobs.slice(1)
      onStarted?.()
      logger.info(
        {
          notificationId,
          chunks: jobs.length + (here ? 1 : 0),
          preparedMs: Math.round(performance.now() - started),
          sendingHere: Boolean(here),
        },
        'push message started',
      )
      if (jobs.length > 0) {
        await queue.queueChunks(jobs)
        queue.wakeChunkWorkers()
      }
      // A message to the card's holders queued its wallet updates with its deliveries (it may have no web push).
      await queue.sendWalletUpdates()
    } finally {
      onStarted?.()
      await here
    }
  }

  return {
    dispatch,
    /** A chunk this process is sending outside the jobs: its job has nothing to do here. */
    isSendingHere: (range: ChunkRange) => local.has(chunkKey(range)),
    /** Resolves once the chunks being sent here are done (a graceful stop waits for them, as for the jobs). */
    settled: () => Promise.all(running).then(() => {}),
  }
}
