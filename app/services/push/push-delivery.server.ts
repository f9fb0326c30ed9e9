import https from 'node:https'
import webpush from 'web-push'
import { getEnv } from '#app/server/env.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { countDeliveries } from '#app/server/metrics.server.ts'
import { normalPushEndpoint } from '#app/utils/push-subscription.ts'
import { queueMessageApplePushes } from '#models/apple-pass.server.ts'
import {
  createFirstDeliveries,
  createNotificationDeliveries,
  markOrphanDeliveriesGone,
  pendingDeliveryBounds,
  pendingDeliveryWait,
  recordDeliveryOutcomes,
  type ClaimedDelivery,
  type DeliveryOutcome,
  type DeliveryRange,
} from '#models/delivery.server.ts'
import { queueMessageGoogleWalletUpdates } from '#models/google-wallet.server.ts'
import { raiseNotice } from '#models/notice.server.ts'
import {
  finishNotificationIfDelivered,
  getMessageContent,
  listUnfinishedNotificationIds,
  lockNotificationStatus,
  markNotificationSending,
  type MessageContent,
} from '#models/notification.server.ts'
import { markLatestMessage } from '#models/pass-message.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import { heldDeliveries } from './held-deliveries.server.ts'
import { encryptPushRequest } from './push-encrypt-pool.server.ts'
import { postToPushService } from './push-request.server.ts'
import { retryBackoffMs } from './retry-backoff.server.ts'
import { getVapidKeys } from './vapid.server.ts'

/**
 * Durable push delivery (issue #6, docs/product/push-messages.md; docs/decisions/017-push-delivery.md).
 *
 * A queued message becomes one `deliveries` row per subscribed device (prepareNotification), split into chunks of
 * ids, each a pg-boss job that any app process may take. A chunk claims its pending rows a few at a time with a
 * lease (`for update skip locked`, so two processes never claim the same row), sends with PUSH_CONCURRENCY
 * requests in flight, and writes each outcome before that request's slot takes the next row. So after a crash the
 * only rows sent but not recorded are the requests that were in flight (at most PUSH_CONCURRENCY per chunk job):
 * their leases run out and they are sent again; the message id is the notification's tag, so the device shows it
 * once. Memory holds one claim of rows per chunk, never a message's whole audience.
 */
export const PUSH_TTL_SECONDS = 86_400
/** Requests in flight per chunk job. */
export const PUSH_CONCURRENCY = 50
/** Delivery ids per chunk job. */
export const PUSH_CHUNK_SIZE = 250
export const PUSH_REQUEST_TIMEOUT_MS = 10_000
/**
 * How long a claim holds its rows: one that runs out means its holder died, and the rows go to the next claim. A live
 * chunk renews the rows it holds (waiting for a slot, or in flight) every quarter of it, and confirms a row it holds
 * since half of it before sending it: on a starved machine a row can wait longer than this for its slot.
 */
export const PUSH_LEASE_SECONDS = 30
export const PUSH_MAX_ATTEMPTS = 6
/** Retries due within this wait in the chunk job; later ones are left to a job scheduled for then. */
const MAX_IN_JOB_WAIT_MS = 60_000
/** A VAPID token is valid up to 24 h; one is signed per push service and reused for 12 h. */
const VAPID_TOKEN_SECONDS = 12 * 3600

type Outcome = { status: 'sent' | 'failed' | 'gone' | 'retry'; error?: string; retryAfterMs?: number }

export type ChunkRange = DeliveryRange

const agent = new https.Agent({ keepAlive: true, maxSockets: 256, timeout: PUSH_REQUEST_TIMEOUT_MS })

/**
 * Turns a queued message into its deliveries (once: the row lock and the status make a second run a no-op) and
 * answers the id ranges of the rows still pending, for the chunk jobs. Every message but a stamp push also queues,
 * in the same transaction, one Apple Wallet push per device and one Google Wallet call per saved pass of its target
 * (a broadcast's audience, or the one holder of an automatic message); their senders settle those rows and finish
 * the message (finishIfComplete) once no channel has one pending. A message nobody can receive is done at once.
 */
export async function prepareNotification(
  notificationId: string,
  { after }: { after?: string } = {},
): Promise<ChunkRange[]> {
  const ranges = await withTransaction(async (transaction) => {
    const message = await lockNotificationStatus(notificationId, transaction)
    if (message?.status !== 'queued' && message?.status !== 'sending') return []
    if (message.status === 'queued') {
      // One delivery per device: a device holding two passes of the card has one endpoint
      // (docs/product/push-messages.md).
      const created = await createNotificationDeliveries(notificationId, transaction, message.target)
      // Every message but the stamp and reward-earned pushes also goes to the wallets of its target (Apple on the
      // back of the pass, Google as the pass's message). The wallets show a stamp through their own rows, and announce
      // an earned reward themselves (Apple's changed field, Google's notified update): a message would say it twice.
      const wallets = message.kind !== 'stamp' && message.kind !== 'reward'
      // The holders' pages show it too (their live feed tells those open), whether or not a device can be reached.
      if (wallets) await markLatestMessage(notificationId, transaction, message.target)
      const applePushes = wallets ? await queueMessageApplePushes(notificationId, transaction, message.target) : 0
      const googleCalls = wallets
        ? await queueMessageGoogleWalletUpdates(notificationId, transaction, message.target)
        : 0
      await markNotificationSending(notificationId, created + applePushes + googleCalls, transaction)
    }
    const bounds = await pendingDeliveryBounds(notificationId, transaction)
    if (bounds?.min == null || bounds.max == null) return []
    const chunks: ChunkRange[] = []
    // The first chunk, made and being sent already (prepareFirstChunk), is not a chunk job's.
    const start = after !== undefined && BigInt(after) >= BigInt(bounds.min) ? BigInt(after) + 1n : BigInt(bounds.min)
    for (let from = start; from <= BigInt(bounds.max); from += BigInt(PUSH_CHUNK_SIZE)) {
      const to = from + BigInt(PUSH_CHUNK_SIZE) - 1n
      chunks.push({
        notificationId,
        fromId: from.toString(),
        toId: (to < BigInt(bounds.max) ? to : BigInt(bounds.max)).toString(),
      })
    }
    return chunks
  })
  if (ranges.length === 0) await finishIfComplete(notificationId)
  return ranges
}

/**
 * A broadcast's first PUSH_CHUNK_SIZE deliveries, made and committed before the rest, so its first requests leave
 * while the rows of a large audience are still being written (10,000 rows took 0.3–0.5 s: the first message left
 * that late). The rest follow in prepareNotification({ after }); until then the message stays 'queued', so a crash
 * between the two leaves it to the resume job, which makes the missing rows (the first ones exist: no conflict, no
 * second delivery). Answers the range to send, or null: not a queued broadcast, or its first rows exist already.
 */
export async function prepareFirstChunk(notificationId: string): Promise<ChunkRange | null> {
  return withTransaction(async (transaction) => {
    const message = await lockNotificationStatus(notificationId, transaction)
    // A holder's message has a handful of devices: one transaction makes them all.
    if (message?.status !== 'queued' || message.target.passId) return null
    const created = await createFirstDeliveries(notificationId, transaction, message.target, PUSH_CHUNK_SIZE)
    return created ? { notificationId, fromId: created.min, toId: created.max } : null
  })
}

/** How long until the range's next pending row can be claimed (a retry's time, or a lease's end); null: none left. */
async function nextClaimableIn(range: ChunkRange): Promise<number | null> {
  const row = await pendingDeliveryWait(range)
  if (!row || row.pending === 0) return null
  return Math.max(0, Number(row.wait_ms ?? 0))
}

/** The notification the holder's service worker shows (public/pass-sw.js). */
export function pushPayload(message: MessageContent, passId: string, appUrl: string) {
  const pass = `${appUrl}/p/${passId}`
  return JSON.stringify({
    id: message.id,
    title: message.title,
    body: message.body,
    url: message.link ?? pass,
    icon: `${pass}/icons/192-${Number(message.cardVersion).toString(36)}.png`,
  })
}

const vapidTokens = new Map<string, { header: string; renewAt: number }>()

async function vapidAuthorization(endpoint: URL): Promise<string> {
  const audience = endpoint.origin
  const cached = vapidTokens.get(audience)
  if (cached && cached.renewAt > Date.now()) return cached.header
  const keys = await getVapidKeys()
  const expiresAt = Math.floor(Date.now() / 1000) + VAPID_TOKEN_SECONDS
  const { Authorization } = webpush.getVapidHeaders(
    audience,
    keys.subject,
    keys.publicKey,
    keys.privateKey,
    'aes128gcm',
    expiresAt,
  )
  vapidTokens.set(audience, { header: Authorization, renewAt: Date.now() + (VAPID_TOKEN_SECONDS - 3600) * 1000 })
  return Authorization
}

function retryAfterMs(value: string | string[] | undefined): number | undefined {
  const header = Array.isArray(value) ? value[0] : value
  if (!header) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/** One request to the push service, and what its answer means for the delivery. */
async function send(delivery: ClaimedDelivery, message: MessageContent, appUrl: string): Promise<Outcome> {
  // Rows saved before the normal form was required, or written by hand: never sent to, and dropped like a 410.
  const url = normalPushEndpoint(delivery.endpoint)
  if (!url) return { status: 'gone', error: 'endpoint not in its normal form' }
  try {
    // Encrypted on the pool's threads (push-encrypt-pool.server.ts); the VAPID token is this thread's, one per service.
    const details = await encryptPushRequest({
      endpoint: url.href,
      p256dh: delivery.p256dh,
      auth: delivery.auth,
      payload: pushPayload(message, delivery.pass_id, appUrl),
      options: {
        TTL: PUSH_TTL_SECONDS,
        urgency: 'normal',
        // A message's later delivery replaces an undelivered earlier one on the push service (32 characters).
        topic: message.id.replaceAll('-', ''),
        headers: { Authorization: await vapidAuthorization(url) },
      },
    })
    const {
      statusCode: code,
      headers,
      body,
    } = await postToPushService(url, details, { agent, timeoutMs: PUSH_REQUEST_TIMEOUT_MS })
    if (code >= 200 && code < 300) return { status: 'sent' }
    if (code === 404 || code === 410) return { status: 'gone', error: `${code}` }
    if (code === 429 || code >= 500)
      return { status: 'retry', error: `${code}`, retryAfterMs: retryAfterMs(headers['retry-after']) }
    return { status: 'failed', error: `${code} ${body.slice(0, 200)}`.trim() }
  } catch (error) {
    // Network errors and timeouts ("Socket timeout"): the push service may be back in a moment.
    return { status: 'retry', error: error instanceof Error ? error.message.slice(0, 200) : 'network error' }
  }
}

type Recorded = DeliveryOutcome

/**
 * Writes outcomes in groups (one statement for the requests that finished together) while each request's slot waits
 * for its own outcome to be stored before it sends again: fewer statements, same crash bound. One writer for the
 * process, with one group being written at a time: what finishes meanwhile, in any chunk, joins the next group, so
 * the groups grow with the load and a message costs few commits (on the embedded database each is an fsync on the
 * main thread).
 */
function outcomeWriter() {
  let batch: { row: Recorded; done: (error?: unknown) => void }[] = []
  let flushing: Promise<void> | null = null

  async function flush() {
    while (batch.length > 0) {
      const current = batch
      batch = []
      const rows = current.map((entry) => entry.row)
      try {
        // The push service says a subscription no longer exists: the same transaction deletes it.
        await recordDeliveryOutcomes(rows)
        for (const entry of current) entry.done()
        for (const row of rows) countDeliveries(row.status === 'pending' ? 'retry' : row.status, 'web')
      } catch (error) {
        for (const entry of current) entry.done(error)
      }
    }
  }

  // Lets the requests that finish in the same tick join the group. A row added between the loop's last look at the
  // batch and `flushing` being cleared would wait for the next request's flush, or for ever when none comes: the
  // end of a flush looks again.
  function schedule() {
    flushing ??= new Promise<void>((next) => setImmediate(next)).then(flush).finally(() => {
      flushing = null
      if (batch.length > 0) schedule()
    })
  }

  return (row: Recorded) =>
    new Promise<void>((resolve, reject) => {
      batch.push({ row, done: (error) => (error ? reject(error) : resolve()) })
      schedule()
    })
}

const record = outcomeWriter()

/** Sends a chunk's deliveries until none is pending; answers when a later retry was left to another job. */
export async function deliverChunk(
  range: ChunkRange,
  {
    appUrl = getEnv().APP_URL,
    firstSent,
    leaseSeconds = PUSH_LEASE_SECONDS,
  }: { appUrl?: string; firstSent?: () => void; leaseSeconds?: number } = {},
): Promise<{ sent: number; retryLaterInMs: number | null }> {
  const message = await getMessageContent(range.notificationId)
  if (!message) return { sent: 0, retryLaterInMs: null }
  let sent = 0
  let queue: ClaimedDelivery[] = []
  let exhausted = false
  let refilling: Promise<void> | null = null
  const held = heldDeliveries(leaseSeconds)

  // `firstSent` is told once the chunk's first request was answered and its outcome stored (or none was to send).
  const refill = () =>
    (refilling ??= held
      .claim(range, PUSH_CONCURRENCY)
      .then((rows) => {
        queue = queue.concat(rows)
        if (rows.length === 0) {
          exhausted = true
          firstSent?.()
        }
      })
      .finally(() => (refilling = null)))

  async function slot() {
    for (;;) {
      if (queue.length === 0) {
        if (exhausted) return
        await refill()
        continue
      }
      const delivery = queue.shift()!
      // Keep one claim ahead of the slots, never more: rows wait little, and leases stay well ahead of the work.
      if (queue.length < PUSH_CONCURRENCY / 2 && !exhausted) void refill().catch(() => {})
      // Its lease ran out while it waited and another claim took it: that claim sends it.
      if (!(await held.holds(delivery))) continue
      const outcome = await send(delivery, message!, appUrl)
      const retry = outcome.status === 'retry' && delivery.attempts < PUSH_MAX_ATTEMPTS
      const status = outcome.status === 'retry' ? (retry ? 'pending' : 'failed') : outcome.status
      await record({
        id: delivery.id,
        attempts: delivery.attempts,
        subscriptionId: delivery.subscription_id,
        status,
        error: outcome.error ?? null,
        nextAttemptAt: retry ? new Date(Date.now() + retryBackoffMs(delivery.attempts, outcome.retryAfterMs)) : null,
      })
      held.release(delivery)
      if (status === 'sent') sent++
      // After its outcome is stored: the statements that follow (the rest of a broadcast's rows) cannot hold it up.
      firstSent?.()
    }
  }

  const stopHeartbeat = held.heartbeat()
  try {
    for (;;) {
      exhausted = false
      await Promise.all(Array.from({ length: PUSH_CONCURRENCY }, slot))
      await markOrphanDeliveriesGone(range)
      const wait = await nextClaimableIn(range)
      if (wait === null) break
      if (wait > MAX_IN_JOB_WAIT_MS) {
        await finishIfComplete(range.notificationId)
        return { sent, retryLaterInMs: wait }
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(50, wait)))
    }
  } finally {
    stopHeartbeat()
  }
  await finishIfComplete(range.notificationId)
  return { sent, retryLaterInMs: null }
}

/**
 * Marks the message done once nothing is pending on any channel (web push, Apple Wallet), and tells the owner (once)
 * that an owner's message finished. Every channel's sender calls it after storing outcomes of a message's rows.
 */
export async function finishIfComplete(notificationId: string) {
  const finished = await finishNotificationIfDelivered(notificationId)
  if (!finished || finished.kind !== 'message') return
  await raiseNotice({
    userId: finished.user_id,
    kind: 'push_finished',
    message:
      `Your push "${finished.title}" reached ${finished.sent} ${finished.sent === 1 ? 'holder' : 'holders'}${finished.failed ? ` (${finished.failed} could not be reached)` : ''}`.slice(
        0,
        300,
      ),
    link: `/account/${finished.card_id}/push_notification/history`,
    dedupeKey: `push_finished:${notificationId}`,
  }).catch((error) => logger.error({ err: error, notificationId }, 'push finished notice failed'))
}

/** Messages that were queued or left mid-send (a restart, a crash): their ids, for the jobs to take up again. */
export async function listUnfinishedNotifications(limit = 1000): Promise<string[]> {
  return listUnfinishedNotificationIds(limit)
}

/** Messages some of whose rows settled (a wallet sender): each may now be done. Never throws (resume job retries). */
export async function finishMessages(notificationIds: Iterable<string>) {
  for (const id of new Set(notificationIds)) {
    await finishIfComplete(id).catch((err) => logger.warn({ err, notificationId: id }, 'message not finished yet'))
  }
}
