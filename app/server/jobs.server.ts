import { AsyncResource } from 'node:async_hooks'
import PgBoss from 'pg-boss'
import { QueryTypes, type Transaction } from 'sequelize'
import { AUTOMATIONS_QUEUE, registerAutomationJobs } from '#app/services/automations/automation-schedule.server.ts'
import { runPlanHousekeeping } from '#app/services/billing/plan-housekeeping.server.ts'
import { rebuildOwnerPassDays } from '#app/services/insights/time-zone-rebuild.server.ts'
import { deliverChunk, listUnfinishedNotifications, type ChunkRange } from '#app/services/push/push-delivery.server.ts'
import { createPushDispatcher } from '#app/services/push/push-dispatch.server.ts'
import { warmEncryptPool } from '#app/services/push/push-encrypt-pool.server.ts'
import {
  registerScheduledBroadcastJobs,
  SCHEDULED_BROADCAST_QUEUE,
} from '#app/services/push/scheduled-broadcast-jobs.server.ts'
import { closeApnsClient, deliverApplePushes } from '#app/services/wallet/apple-push-delivery.server.ts'
import { deliverGoogleWalletUpdates } from '#app/services/wallet/google-wallet-delivery.server.ts'
import { runWalletHousekeeping } from '#app/services/wallet/wallet-housekeeping.server.ts'
import { getAppleWalletConfig } from './apple-wallet-config.server.ts'
import { databaseConnectionOptions, getSequelize } from './db.server.ts'
import { getEnv } from './env.server.ts'
import { getGoogleWalletConfig } from './google-wallet-config.server.ts'
import { createQueueIfMissing } from './job-queues.server.ts'
import { logger } from './logger.server.ts'

export const PLAN_HOUSEKEEPING_QUEUE = 'plan-housekeeping'
/** Every 5 minutes: a trial that ends at 10:02 is ended by 10:05 in the stored data (pages know at once). */
export const PLAN_HOUSEKEEPING_CRON = '*/5 * * * *'
/** One job per push message: makes its deliveries and the chunk jobs that send them. */
export const PUSH_MESSAGE_QUEUE = 'push-message'
/** One job per chunk of a message's deliveries: any process may take it, so several share a large message. */
export const PUSH_CHUNK_QUEUE = 'push-chunk'
/** Every minute and at start: messages left queued or mid-send (a restart, a crash) are taken up again. */
export const PUSH_RESUME_QUEUE = 'push-resume'
/** Apple Wallet's APNs pushes: any process may take the job; it sends every due pending push (rows, leases). */
export const APPLE_PUSH_QUEUE = 'apple-push'
/** Google Wallet's calls (class and object updates, messages): any process may take the job (rows, leases). */
export const GOOGLE_WALLET_QUEUE = 'google-wallet'
/** Hourly: voided passes and registrations past keeping are removed; a certificate near its end is reported. */
export const WALLET_HOUSEKEEPING_QUEUE = 'wallet-housekeeping'
/** One job per owner whose time zone changed: their pass_days made anew in the new zone. */
export const TIME_ZONE_REBUILD_QUEUE = 'time-zone-rebuild'
/** Chunk jobs one process runs at once (each with PUSH_CONCURRENCY requests in flight). */
const CHUNK_WORKERS = 2

// The running queue of this process, kept on globalThis: a copy of this module Vite loads after an edit (development),
// or vitest beside the build (tests), reaches the queue start() began (docs/decisions/001-process-and-module-graph.md).
const RUNNING = Symbol.for('stampwise.jobs')
/** Starts a push message in the running queue's process (same reason: the copy that started the queue owns it). */
const START_PUSH = Symbol.for('stampwise.start-push-message')
type Global = { [RUNNING]?: PgBoss; [START_PUSH]?: (notificationId: string) => Promise<void> }

/**
 * Asks for a queued push message to be sent now: in a process running the job queue it starts here at once (its
 * deliveries made, its first chunk sent, its chunk jobs queued: app/services/push/push-dispatch.server.ts), without
 * waiting for a job queue poll. The caller does not wait for any of it (a Send, a stamp): errors are logged, and the
 * resume job takes up a message left queued. Without a running job queue (a command, a test) nothing is lost: the
 * message is stored as queued, and the resume job sends it when the queue starts.
 */
export async function enqueuePushMessage(notificationId: string) {
  void (globalThis as Global)[START_PUSH]?.(notificationId)
}

/**
 * enqueuePushMessage, answering once the message's first requests are on their way (or it had none to send here):
 * for a caller with more to do that would hold them back, as the Send's count of the audience, on the embedded
 * database's one engine, would. Never rejects.
 */
export async function startPushMessage(notificationId: string) {
  await (globalThis as Global)[START_PUSH]?.(notificationId)
}

/**
 * Asks for the queued wallet updates (Apple Wallet's APNs pushes, Google Wallet's calls) to be sent now, after the
 * transaction that queued them committed. Without a running job queue nothing is lost: the resume job sends them
 * within a minute.
 */
export async function enqueueWalletUpdates() {
  const boss = (globalThis as Global)[RUNNING]
  if (!boss) return
  // A wallet that is off had nothing queued (no device registered, no pass saved): a stamp costs no job.
  const queues = [
    ...(getAppleWalletConfig() ? [APPLE_PUSH_QUEUE] : []),
    ...(getGoogleWalletConfig() ? [GOOGLE_WALLET_QUEUE] : []),
  ]
  for (const queue of queues) {
    await boss
      .send(queue, {}, { singletonKey: queue })
      .catch((err) => logger.warn({ err, queue }, 'wallet updates not enqueued; the resume job will send them'))
  }
}

/**
 * Queues the rebuild of an owner's pass_days after a change of their time zone, inside the transaction that stores
 * the zone: both commit or neither does, and the job cannot run before the zone it is for is visible.
 *
 * One waiting job per owner (the queue's 'short' policy, keyed by the owner): changes while one waits add nothing,
 * since the waiting job reads the zone when it runs. A change while one runs adds a waiting job (the policy limits
 * waiting jobs, not running ones), so whatever the running job did in the older zone is redone afterwards. Two
 * rebuilds of one owner at once are harmless: each chunk locks its passes, and the removed holders' rows take a lock
 * of their own (models/insights-rebuild.server.ts).
 *
 * Without a running job queue (a command, a test that starts none) the zone is saved and nothing is queued: a
 * warning says so (this process is then not the server, which always runs the queue).
 */
export async function enqueueTimeZoneRebuild(userId: string, transaction: Transaction) {
  const boss = (globalThis as Global)[RUNNING]
  if (!boss) {
    logger.warn({ userId }, 'time zone changed without a running job queue: its figures are not rebuilt')
    return
  }
  const db = {
    // pg-boss's statements run on the transaction's connection (its own pool would insert outside it).
    executeSql: async (text: string, values: unknown[] = []) => ({
      rows: await getSequelize().query(text, {
        bind: values.map((value) => (value === undefined ? null : value)),
        type: QueryTypes.SELECT,
        transaction,
      }),
    }),
  }
  await boss.send(TIME_ZONE_REBUILD_QUEUE, { userId }, { singletonKey: userId, db })
}

/** Jobs waiting in each queue (for /metrics); null when this process runs no job queue. */
export async function queueDepths(): Promise<Record<string, number> | null> {
  const boss = (globalThis as Global)[RUNNING]
  if (!boss) return null
  const queues = [
    PLAN_HOUSEKEEPING_QUEUE,
    PUSH_MESSAGE_QUEUE,
    PUSH_CHUNK_QUEUE,
    PUSH_RESUME_QUEUE,
    APPLE_PUSH_QUEUE,
    GOOGLE_WALLET_QUEUE,
    WALLET_HOUSEKEEPING_QUEUE,
    TIME_ZONE_REBUILD_QUEUE,
    SCHEDULED_BROADCAST_QUEUE,
    AUTOMATIONS_QUEUE,
  ]
  const sizes = await Promise.all(queues.map((queue) => boss.getQueueSize(queue)))
  return Object.fromEntries(queues.map((queue, index) => [queue, sizes[index]!]))
}

/**
 * pg-boss on the app's own database (the embedded one through its socket, or the server): schedules and push
 * messages survive a restart, and several processes share the work (pg-boss gives each job to one of them).
 */
export type JobHooks = {
  /** A chunk job finished its rows (or left later retries to another job): for logs, metrics and tests. */
  chunkDelivered?: (range: ChunkRange, sent: number) => void
  /** An Apple Wallet push job finished its due pushes. */
  applePushesDelivered?: (sent: number) => void
  /** A Google Wallet job finished its due calls. */
  googleWalletUpdatesDelivered?: (sent: number) => void
}

export async function startJobs(env = getEnv(), hooks: JobHooks = {}) {
  const connection = databaseConnectionOptions(env)
  const boss = new PgBoss({
    host: connection.host,
    port: connection.port,
    user: connection.username,
    password: connection.password ?? undefined,
    database: connection.database,
    max: 4,
    application_name: 'stampwise-jobs',
  })
  boss.on('error', (err) => logger.error({ err }, 'job queue error'))
  await boss.start()
  await createQueueIfMissing(boss, PLAN_HOUSEKEEPING_QUEUE)
  // 'short': at most one waiting job per message or chunk, however often the resume job asks. Not 'stately': the
  // running job of a process that was killed would keep its replacement from starting until it expires. Two runs of
  // one chunk are harmless: rows are claimed with leases.
  const pushQueue = {
    policy: 'short' as const,
    retryLimit: 20,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: 30 * 60,
  }
  await createQueueIfMissing(boss, PUSH_MESSAGE_QUEUE, { name: PUSH_MESSAGE_QUEUE, ...pushQueue })
  await createQueueIfMissing(boss, PUSH_CHUNK_QUEUE, { name: PUSH_CHUNK_QUEUE, ...pushQueue })
  await createQueueIfMissing(boss, PUSH_RESUME_QUEUE, { name: PUSH_RESUME_QUEUE, policy: 'short' })
  await createQueueIfMissing(boss, APPLE_PUSH_QUEUE, { name: APPLE_PUSH_QUEUE, ...pushQueue })
  await createQueueIfMissing(boss, GOOGLE_WALLET_QUEUE, { name: GOOGLE_WALLET_QUEUE, ...pushQueue })
  await createQueueIfMissing(boss, WALLET_HOUSEKEEPING_QUEUE, { name: WALLET_HOUSEKEEPING_QUEUE, policy: 'short' })
  // 'short' keyed by owner: see enqueueTimeZoneRebuild. A rebuild is redone from the start when retried (it is
  // idempotent); an hour is far beyond the largest card's (100,000 passes: 100 chunks).
  await createQueueIfMissing(boss, TIME_ZONE_REBUILD_QUEUE, {
    name: TIME_ZONE_REBUILD_QUEUE,
    policy: 'short',
    retryLimit: 10,
    retryDelay: 30,
    retryBackoff: true,
    expireInSeconds: 60 * 60,
  })

  await boss.schedule(PLAN_HOUSEKEEPING_QUEUE, PLAN_HOUSEKEEPING_CRON, {}, { tz: 'UTC' })
  await boss.work(PLAN_HOUSEKEEPING_QUEUE, async () => {
    const result = await runPlanHousekeeping()
    if (result.applied || result.notices || result.refitted) logger.info(result, 'plan housekeeping')
  })

  const chunkKey = (range: ChunkRange) => `${range.notificationId}:${range.fromId}`
  const sendChunk = (range: ChunkRange, startAfter?: number) =>
    boss.send(PUSH_CHUNK_QUEUE, range, { singletonKey: chunkKey(range), startAfter })
  // The encryption threads start with the queue: the first message does not wait for them.
  warmEncryptPool()
  const chunkWorkers: string[] = []
  const wakeChunkWorkers = () => chunkWorkers.forEach((id) => boss.notifyWorker(id))
  // A message starts in the process that queued it (enqueuePushMessage); the message job (the resume job's) only
  // makes the deliveries and the chunk jobs, which this process's workers are woken for.
  const dispatcher = createPushDispatcher({
    // One statement for all of a message's chunk jobs; under the 'short' policy one already waiting is skipped.
    queueChunks: (ranges) =>
      boss.insert(ranges.map((range) => ({ name: PUSH_CHUNK_QUEUE, data: range, singletonKey: chunkKey(range) }))),
    queueChunkLater: (range, inMs) => sendChunk(range, Math.ceil(inMs / 1000)),
    wakeChunkWorkers,
    sendWalletUpdates: enqueueWalletUpdates,
    chunkDelivered: hooks.chunkDelivered,
  })
  await boss.work<{ notificationId: string }>(PUSH_MESSAGE_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
    await dispatcher.dispatch(job!.data.notificationId, { sendFirst: false })
  })
  for (let worker = 0; worker < CHUNK_WORKERS; worker++) {
    const id: string = await boss.work<ChunkRange>(PUSH_CHUNK_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
      // Looks for the next chunk as soon as this one is done, not after the polling interval: a message's chunks
      // follow each other without a pause (pg-boss waits only when the worker was not notified meanwhile).
      boss.notifyWorker(id)
      // Sent by this process outside the jobs right now: nothing left to claim here.
      if (dispatcher.isSendingHere(job!.data)) return
      const { sent, retryLaterInMs } = await deliverChunk(job!.data)
      logger.info({ ...job!.data, sent, retryLaterInMs }, 'push chunk delivered')
      hooks.chunkDelivered?.(job!.data, sent)
      if (retryLaterInMs !== null) await sendChunk(job!.data, Math.ceil(retryLaterInMs / 1000))
    })
    chunkWorkers.push(id)
  }
  // A job asked for later (a retry's time, a lease's end) has a key of its own: under the 'short' policy a waiting job
  // of the same key would turn away the wake-ups of new stamps and messages until then.
  const walletJob = (queue: string, startAfter?: number) =>
    boss.send(queue, {}, { singletonKey: startAfter ? `${queue}:later` : queue, startAfter })
  const sendApplePushes = (startAfter?: number) => walletJob(APPLE_PUSH_QUEUE, startAfter)
  await boss.work(APPLE_PUSH_QUEUE, { pollingIntervalSeconds: 0.5 }, async () => {
    const { sent, retryLaterInMs } = await deliverApplePushes()
    if (sent) logger.info({ sent, retryLaterInMs }, 'Apple Wallet pushes sent')
    hooks.applePushesDelivered?.(sent)
    if (retryLaterInMs !== null) await sendApplePushes(Math.ceil(retryLaterInMs / 1000))
  })
  const sendGoogleWalletUpdates = (startAfter?: number) => walletJob(GOOGLE_WALLET_QUEUE, startAfter)
  await boss.work(GOOGLE_WALLET_QUEUE, { pollingIntervalSeconds: 0.5 }, async () => {
    const { sent, retryLaterInMs } = await deliverGoogleWalletUpdates()
    if (sent) logger.info({ sent, retryLaterInMs }, 'Google Wallet updates sent')
    hooks.googleWalletUpdatesDelivered?.(sent)
    if (retryLaterInMs !== null) await sendGoogleWalletUpdates(Math.ceil(retryLaterInMs / 1000))
  })
  await boss.schedule(WALLET_HOUSEKEEPING_QUEUE, '17 * * * *', {}, { tz: 'UTC' })
  await boss.work(WALLET_HOUSEKEEPING_QUEUE, async () => {
    const result = await runWalletHousekeeping()
    if (result.registrations || result.pushes) logger.info(result, 'wallet housekeeping')
  })

  await boss.work<{ userId: string }>(TIME_ZONE_REBUILD_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
    await rebuildOwnerPassDays(job!.data.userId)
  })

  // Scheduled broadcasts (issue 19): a timer for the next due one in this process, and a minute job for the overdue.
  const stopScheduledBroadcasts = await registerScheduledBroadcastJobs(boss)
  // Automatic messages (issue 19): the minute schedule of occasions and their release.
  await registerAutomationJobs(boss)

  await boss.schedule(PUSH_RESUME_QUEUE, '* * * * *', {}, { tz: 'UTC' })
  await boss.work(PUSH_RESUME_QUEUE, async () => {
    for (const notificationId of await listUnfinishedNotifications()) {
      await boss.send(PUSH_MESSAGE_QUEUE, { notificationId }, { singletonKey: notificationId })
    }
    // Pushes queued while no job queue ran (a command, a crash before the wake-up): one job takes them all.
    await sendApplePushes()
    await sendGoogleWalletUpdates()
  })

  // Catch up at once after a restart rather than waiting for the next tick.
  await boss.send(PLAN_HOUSEKEEPING_QUEUE, {}, { singletonKey: 'startup', singletonSeconds: 60 })
  await boss.send(PUSH_RESUME_QUEUE, {})
  await boss.send(WALLET_HOUSEKEEPING_QUEUE, {}, { singletonKey: 'startup', singletonSeconds: 3600 })
  ;(globalThis as Global)[RUNNING] = boss
  // Bound to the queue's start, outside any request: a Send's or a stamp's statement counts (Server-Timing) and its
  // other request-scoped state do not take in the delivery that outlives it.
  const startHere = AsyncResource.bind(
    (notificationId: string) =>
      new Promise<void>((started) => {
        void dispatcher
          .dispatch(notificationId, { onStarted: started })
          .catch((err) => logger.warn({ err, notificationId }, 'push message not started; the resume job will send it'))
      }),
  )
  ;(globalThis as Global)[START_PUSH] = startHere
  return {
    boss,
    stop: async () => {
      if ((globalThis as Global)[RUNNING] === boss) delete (globalThis as Global)[RUNNING]
      stopScheduledBroadcasts()
      if ((globalThis as Global)[START_PUSH] === startHere) delete (globalThis as Global)[START_PUSH]
      // Chunks sent outside the jobs finish like the jobs do (their leases would otherwise hold the rows 30 s).
      await Promise.race([dispatcher.settled(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())])
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 })
      await closeApnsClient()
    },
  }
}
