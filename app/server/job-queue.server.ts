import PgBoss from 'pg-boss'
import { QueryTypes, type Transaction } from 'sequelize'
import { getAppleWalletConfig } from './apple-wallet-config.server.ts'
import { getSequelize } from './db.server.ts'
import { getGoogleWalletConfig } from './google-wallet-config.server.ts'
import { logger } from './logger.server.ts'

/*
 * The job queue as the services see it: the queues by name, and the asking for work (enqueue…) in whichever
 * process runs the queue. It imports no service: the handlers are registered by the composition root
 * (app/main/jobs.server.ts), which imports the services, so a service may enqueue without a circle
 * (docs/decisions/054-composition-root-and-layers.md).
 */

export const PLAN_HOUSEKEEPING_QUEUE = 'plan-housekeeping'
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
/** Every minute, in whichever process pg-boss gives it to: broadcasts overdue (no process's timer was running). */
export const SCHEDULED_BROADCAST_QUEUE = 'scheduled-broadcasts'
/** Every minute: the automatic messages' occasions made and released (automation-schedule.server.ts). */
export const AUTOMATIONS_QUEUE = 'automations'

/** Every queue, for the depths /metrics reports. */
const ALL_QUEUES = [
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

// The running queue of this process, kept on globalThis: a copy of this module Vite loads after an edit
// (development), or vitest beside the build (tests), reaches the queue startJobs began
// (docs/decisions/001-process-and-module-graph.md).
const RUNNING = Symbol.for('stampwise.jobs')
/** Starts a push message in the running queue's process (same reason: the copy that started the queue owns it). */
const START_PUSH = Symbol.for('stampwise.start-push-message')
/** Wakes the running queue's process's own wallet senders (same reason). */
const WAKE_WALLETS = Symbol.for('stampwise.wake-wallet-senders')
type Global = {
  [RUNNING]?: PgBoss
  [START_PUSH]?: (notificationId: string) => Promise<void>
  [WAKE_WALLETS]?: (wallets: WalletsToUpdate) => void
}

/** Which wallets a change queued rows for: Apple Wallet's APNs pushes, Google Wallet's calls. */
export type WalletsToUpdate = { apple: boolean; google: boolean }
const BOTH_WALLETS: WalletsToUpdate = { apple: true, google: true }

/**
 * Called by startJobs once its workers are registered: from then on the enqueue functions reach `boss`, a push
 * message asked for is started by `startPushMessageHere` and queued wallet updates are sent by `wakeWalletSenders`.
 * Answers the undoing, for the queue's stop.
 */
export function setRunningQueue(
  boss: PgBoss,
  startPushMessageHere: (notificationId: string) => Promise<void>,
  wakeWalletSenders: (wallets: WalletsToUpdate) => void,
) {
  const global = globalThis as Global
  global[RUNNING] = boss
  global[START_PUSH] = startPushMessageHere
  global[WAKE_WALLETS] = wakeWalletSenders
  return () => {
    if (global[RUNNING] === boss) delete global[RUNNING]
    if (global[START_PUSH] === startPushMessageHere) delete global[START_PUSH]
    if (global[WAKE_WALLETS] === wakeWalletSenders) delete global[WAKE_WALLETS]
  }
}

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
 * transaction that queued them committed: this process's own senders start at once, without a job or a poll
 * (docs/decisions/059-wallet-updates-woken-in-process.md). `wallets` names the wallets that got rows (a stamp on a
 * pass in no wallet names none, and costs nothing); without it, both. A wallet that is off had nothing queued. The
 * caller does not wait for the sending. Without a running job queue (a command, a test) nothing is lost: the rows
 * wait, and the resume job, in whichever process runs it, sends them within a minute.
 */
export async function enqueueWalletUpdates(wallets: WalletsToUpdate = BOTH_WALLETS) {
  const apple = wallets.apple && getAppleWalletConfig() !== null
  const google = wallets.google && getGoogleWalletConfig() !== null
  if (apple || google) (globalThis as Global)[WAKE_WALLETS]?.({ apple, google })
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
  const sizes = await Promise.all(ALL_QUEUES.map((queue) => boss.getQueueSize(queue)))
  return Object.fromEntries(ALL_QUEUES.map((queue, index) => [queue, sizes[index]!]))
}

/** PostgreSQL's codes for a deadlock and for a row another transaction inserted first. */
const RACE_CODES = new Set(['40P01', '23505'])

/**
 * pg-boss 10's create_queue() deadlocks when two processes create the same queue at once (each holds the row the
 * other's partition waits for), as several instances starting together on an empty database do. A queue that
 * exists is left alone (createQueue would not change it either); a lost race is retried after a short pause, by
 * which time the winner's queue usually exists.
 */
export async function createQueueIfMissing(boss: PgBoss, name: string, options?: PgBoss.Queue) {
  for (let attempt = 1; ; attempt++) {
    if (await boss.getQueue(name)) return
    try {
      await boss.createQueue(name, options)
      return
    } catch (error) {
      const code = (error as { code?: string }).code
      if (attempt >= 5 || !code || !RACE_CODES.has(code)) throw error
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200 * attempt))
    }
  }
}
