import { AsyncResource } from 'node:async_hooks'
import PgBoss from 'pg-boss'
import { databaseConnectionOptions } from '#app/server/db.server.ts'
import { getEnv } from '#app/server/env.server.ts'
import {
  APPLE_PUSH_QUEUE,
  createQueueIfMissing,
  enqueueWalletUpdates,
  GOOGLE_WALLET_QUEUE,
  PLAN_HOUSEKEEPING_QUEUE,
  PUSH_CHUNK_QUEUE,
  PUSH_MESSAGE_QUEUE,
  PUSH_RESUME_QUEUE,
  setRunningQueue,
  TIME_ZONE_REBUILD_QUEUE,
  WALLET_HOUSEKEEPING_QUEUE,
  type WalletsToUpdate,
} from '#app/server/job-queue.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { registerAutomationJobs } from '#app/services/automations/automation-schedule.server.ts'
import { runPlanHousekeeping } from '#app/services/billing/plan-housekeeping.server.ts'
import { rebuildOwnerPassDays } from '#app/services/insights/time-zone-rebuild.server.ts'
import { deliverChunk, listUnfinishedNotifications, type ChunkRange } from '#app/services/push/push-delivery.server.ts'
import { createPushDispatcher } from '#app/services/push/push-dispatch.server.ts'
import { warmEncryptPool } from '#app/services/push/push-encrypt-pool.server.ts'
import { registerScheduledBroadcastJobs } from '#app/services/push/scheduled-broadcast-jobs.server.ts'
import { closeApnsClient, deliverApplePushes } from '#app/services/wallet/apple-push-delivery.server.ts'
import { deliverGoogleWalletUpdates } from '#app/services/wallet/google-wallet-delivery.server.ts'
import { runWalletHousekeeping } from '#app/services/wallet/wallet-housekeeping.server.ts'
import { createWalletSender, type WalletRun } from './wallet-senders.server.ts'

/*
 * The job workers: pg-boss started, its queues made and every service's handler registered. This is composition
 * (it imports the services whose work the jobs do); the services ask for work through app/server/job-queue.server.ts,
 * which knows the queues by name only, so neither imports the other both ways (decision 054).
 */

/** Every 5 minutes: a trial that ends at 10:02 is ended by 10:05 in the stored data (pages know at once). */
const PLAN_HOUSEKEEPING_CRON = '*/5 * * * *'
/** Chunk jobs one process runs at once (each with PUSH_CONCURRENCY requests in flight). */
const CHUNK_WORKERS = 2

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
  const sendGoogleWalletUpdates = (startAfter?: number) => walletJob(GOOGLE_WALLET_QUEUE, startAfter)
  // The same run for the queue's job (any process's: the resume job, a retry's time) and for this process's own
  // senders, which a change that queued rows wakes at once (enqueueWalletUpdates; decision 059).
  const afterApplePushes = async ({ sent, retryLaterInMs }: WalletRun) => {
    if (sent) logger.info({ sent, retryLaterInMs }, 'Apple Wallet pushes sent')
    hooks.applePushesDelivered?.(sent)
    if (retryLaterInMs !== null) await sendApplePushes(Math.ceil(retryLaterInMs / 1000))
  }
  const afterGoogleWalletUpdates = async ({ sent, retryLaterInMs }: WalletRun) => {
    if (sent) logger.info({ sent, retryLaterInMs }, 'Google Wallet updates sent')
    hooks.googleWalletUpdatesDelivered?.(sent)
    if (retryLaterInMs !== null) await sendGoogleWalletUpdates(Math.ceil(retryLaterInMs / 1000))
  }
  await boss.work(APPLE_PUSH_QUEUE, { pollingIntervalSeconds: 0.5 }, async () => {
    await afterApplePushes(await deliverApplePushes())
  })
  await boss.work(GOOGLE_WALLET_QUEUE, { pollingIntervalSeconds: 0.5 }, async () => {
    await afterGoogleWalletUpdates(await deliverGoogleWalletUpdates())
  })
  const appleSender = createWalletSender({
    name: 'apple',
    deliver: deliverApplePushes,
    afterRun: afterApplePushes,
  })
  const googleSender = createWalletSender({
    name: 'google',
    deliver: deliverGoogleWalletUpdates,
    afterRun: afterGoogleWalletUpdates,
  })
  const wakeWalletSenders = ({ apple, google }: WalletsToUpdate) => {
    if (apple) appleSender.wake()
    if (google) googleSender.wake()
  }
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
  const leaveRunningQueue = setRunningQueue(boss, startHere, wakeWalletSenders)
  return {
    boss,
    stop: async () => {
      leaveRunningQueue()
      stopScheduledBroadcasts()
      // Chunks sent outside the jobs finish like the jobs do (their leases would otherwise hold the rows 30 s).
      // So do this process's wallet senders (their leases too).
      const settled = Promise.all([dispatcher.settled(), appleSender.settled(), googleSender.settled()])
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 10_000).unref())])
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 })
      await closeApnsClient()
    },
  }
}
