import https from 'node:https'
import { QueryTypes, type Transaction } from 'sequelize'
import webpush from 'web-push'
import { raiseNotice } from '#models/notice.server.ts'
import { getSequelize } from '#app/server/db.server.ts'
import { getEnv } from '#app/server/env.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { countDeliveries } from '#app/server/metrics.server.ts'
import { postToPushService } from './push-request.server.ts'
import { normalPushEndpoint } from '#app/utils/push-subscription.ts'
import { getVapidKeys } from './vapid.server.ts'

/**
 * Durable push delivery (issue #6, DECISIONS.md "Push messages"; docs/decisions/017-push-delivery.md).
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
/** Longer than a claimed row can wait for its slot plus one request's timeout, so a live worker's rows stay its own. */
export const PUSH_LEASE_SECONDS = 30
export const PUSH_MAX_ATTEMPTS = 6
const BACKOFF_BASE_MS = 1_000
const BACKOFF_MAX_MS = 10 * 60_000
/** Retries due within this wait in the chunk job; later ones are left to a job scheduled for then. */
const MAX_IN_JOB_WAIT_MS = 60_000
/** A VAPID token is valid up to 24 h; one is signed per push service and reused for 12 h. */
const VAPID_TOKEN_SECONDS = 12 * 3600

type Outcome = { status: 'sent' | 'failed' | 'gone' | 'retry'; error?: string; retryAfterMs?: number }

type ClaimedDelivery = {
  id: string
  subscription_id: string
  endpoint: string
  p256dh: string
  auth: string
  attempts: number
  pass_id: string
}

type MessageContent = { id: string; title: string; body: string; link: string | null; cardVersion: string }

export type ChunkRange = { notificationId: string; fromId: string; toId: string }

const agent = new https.Agent({ keepAlive: true, maxSockets: 256, timeout: PUSH_REQUEST_TIMEOUT_MS })

const select = <Row extends object>(sql: string, replacements: Record<string, unknown>, transaction?: Transaction) =>
  getSequelize().query<Row>(sql, { replacements, type: QueryTypes.SELECT, transaction })

/**
 * Turns a queued message into its deliveries (once: the row lock and the status make a second run a no-op) and
 * answers the id ranges of the rows still pending, for the chunk jobs. A message nobody can receive is done at once.
 */
export async function prepareNotification(notificationId: string): Promise<ChunkRange[]> {
  const ranges = await getSequelize().transaction(async (transaction) => {
    const [message] = await select<{ status: string }>(`select status from notifications where id = :notificationId for update`, { notificationId }, transaction)
    if (!message || (message.status !== 'queued' && message.status !== 'sending')) return []
    if (message.status === 'queued') {
      // One delivery per device: a device holding two passes of the card has one endpoint (DECISIONS.md).
      const [inserted] = await select<{ count: number }>(
        `with audience as (
           select distinct on (s.endpoint) s.id
           from notifications n
           join passes p on p.card_id = n.card_id and (n.pass_id is null or p.id = n.pass_id)
           join push_subscriptions s on s.pass_id = p.id
           where n.id = :notificationId
           order by s.endpoint, s.updated_at desc
         ), created as (
           insert into deliveries (notification_id, push_subscription_id)
           select :notificationId, id from audience order by id
           on conflict do nothing returning 1
         )
         select count(*)::int as count from created`,
        { notificationId },
        transaction,
      )
      await getSequelize().query(`update notifications set status = 'sending', recipients = :count where id = :notificationId`, {
        replacements: { notificationId, count: inserted!.count },
        transaction,
      })
    }
    const [bounds] = await select<{ min: string | null; max: string | null }>(
      `select min(id)::text as min, max(id)::text as max from deliveries where notification_id = :notificationId and status = 'pending'`,
      { notificationId },
      transaction,
    )
    if (bounds?.min == null || bounds.max == null) return []
    const chunks: ChunkRange[] = []
    for (let from = BigInt(bounds.min); from <= BigInt(bounds.max); from += BigInt(PUSH_CHUNK_SIZE)) {
      const to = from + BigInt(PUSH_CHUNK_SIZE) - 1n
      chunks.push({ notificationId, fromId: from.toString(), toId: (to < BigInt(bounds.max) ? to : BigInt(bounds.max)).toString() })
    }
    return chunks
  })
  if (ranges.length === 0) await finishIfComplete(notificationId)
  return ranges
}

/** Claims up to `limit` due, unleased pending rows of the range; each claim counts as an attempt. */
async function claim(range: ChunkRange, limit: number): Promise<ClaimedDelivery[]> {
  return select<ClaimedDelivery>(
    `with picked as (
       select id from deliveries
       where notification_id = :notificationId and id between :fromId and :toId and status = 'pending'
         and push_subscription_id is not null
         and (lease_until is null or lease_until < now()) and (next_attempt_at is null or next_attempt_at <= now())
       order by id limit :limit
       for update skip locked
     )
     update deliveries d set attempts = d.attempts + 1, lease_until = now() + make_interval(secs => :lease)
     from picked, push_subscriptions s
     where d.id = picked.id and s.id = d.push_subscription_id
     returning d.id::text as id, s.id as subscription_id, s.endpoint, s.p256dh, s.auth, d.attempts, s.pass_id`,
    { ...range, limit, lease: PUSH_LEASE_SECONDS },
  )
}

/** How long until the range's next pending row can be claimed (a retry's time, or a lease's end); null: none left. */
async function nextClaimableIn(range: ChunkRange): Promise<number | null> {
  const [row] = await select<{ wait_ms: number | null; pending: number }>(
    `select count(*)::int as pending,
            extract(epoch from min(greatest(coalesce(next_attempt_at, now()), coalesce(lease_until, now())) - now())) * 1000 as wait_ms
     from deliveries where notification_id = :notificationId and id between :fromId and :toId and status = 'pending'`,
    range,
  )
  if (!row || row.pending === 0) return null
  return Math.max(0, Number(row.wait_ms ?? 0))
}

/**
 * Rows whose subscription was deleted after they were claimable (the holder turned notifications off) are dropped
 * by the claim's join: mark them gone so the message can finish.
 */
async function dropOrphans(range: ChunkRange) {
  await getSequelize().query(
    `update deliveries set status = 'gone', last_error = 'unsubscribed', lease_until = null
     where notification_id = :notificationId and id between :fromId and :toId and status = 'pending' and push_subscription_id is null`,
    { replacements: range },
  )
}

async function loadMessage(notificationId: string): Promise<MessageContent | null> {
  const [row] = await select<MessageContent>(
    `select n.id, n.title, n.body, n.link, round(extract(epoch from c.updated_at) * 1000)::bigint::text as "cardVersion"
     from notifications n join cards c on c.id = n.card_id where n.id = :notificationId`,
    { notificationId },
  )
  return row ?? null
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
  const { Authorization } = webpush.getVapidHeaders(audience, keys.subject, keys.publicKey, keys.privateKey, 'aes128gcm', expiresAt)
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
    const details = webpush.generateRequestDetails(
      { endpoint: url.href, keys: { p256dh: delivery.p256dh, auth: delivery.auth } },
      pushPayload(message, delivery.pass_id, appUrl),
      {
        TTL: PUSH_TTL_SECONDS,
        urgency: 'normal',
        // A message's later delivery replaces an undelivered earlier one on the push service (32 characters).
        topic: message.id.replaceAll('-', ''),
        headers: { Authorization: await vapidAuthorization(url) },
      },
    )
    const { statusCode: code, headers, body } = await postToPushService(url, details, { agent, timeoutMs: PUSH_REQUEST_TIMEOUT_MS })
    if (code >= 200 && code < 300) return { status: 'sent' }
    if (code === 404 || code === 410) return { status: 'gone', error: `${code}` }
    if (code === 429 || code >= 500) return { status: 'retry', error: `${code}`, retryAfterMs: retryAfterMs(headers['retry-after']) }
    return { status: 'failed', error: `${code} ${body.slice(0, 200)}`.trim() }
  } catch (error) {
    // Network errors and timeouts ("Socket timeout"): the push service may be back in a moment.
    return { status: 'retry', error: error instanceof Error ? error.message.slice(0, 200) : 'network error' }
  }
}

function backoffMs(attempts: number, retryAfter?: number) {
  const exponential = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempts - 1))
  const jittered = exponential / 2 + Math.random() * (exponential / 2)
  return Math.min(BACKOFF_MAX_MS, Math.max(jittered, retryAfter ?? 0))
}

type Recorded = { id: string; subscriptionId: string; status: 'sent' | 'failed' | 'gone' | 'pending'; error: string | null; nextAttemptAt: Date | null }

/**
 * Writes outcomes in small groups (one statement for the requests that finished together) while each request's
 * slot waits for its own outcome to be stored before it sends again: fewer statements, same crash bound.
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
        await getSequelize().transaction(async (transaction) => {
          await getSequelize().query(
            `update deliveries d set status = r.status, last_error = r.error, next_attempt_at = r.next_attempt_at, lease_until = null,
                    sent_at = case when r.status = 'sent' then now() else d.sent_at end
             from unnest(array[:ids]::bigint[], array[:statuses]::text[], array[:errors]::text[], array[:nexts]::timestamptz[])
               as r(id, status, error, next_attempt_at)
             where d.id = r.id`,
            {
              replacements: {
                ids: rows.map((row) => row.id),
                statuses: rows.map((row) => row.status),
                errors: rows.map((row) => row.error),
                nexts: rows.map((row) => row.nextAttemptAt?.toISOString() ?? null),
              },
              transaction,
            },
          )
          const gone = rows.filter((row) => row.status === 'gone').map((row) => row.subscriptionId)
          // The push service says the subscription no longer exists: nobody may send to it again.
          if (gone.length) await getSequelize().query(`delete from push_subscriptions where id in (:gone)`, { replacements: { gone }, transaction })
        })
        for (const entry of current) entry.done()
        for (const row of rows) countDeliveries(row.status === 'pending' ? 'retry' : row.status)
      } catch (error) {
        for (const entry of current) entry.done(error)
      }
    }
  }

  // Lets the requests that finish in the same tick join the group. A row added between the loop's last look at the
  // batch and `flushing` being cleared would wait for the next request's flush, or for ever when none comes: the
  // end of a flush looks again.
  function schedule() {
    flushing ??= new Promise<void>((next) => setImmediate(next))
      .then(flush)
      .finally(() => {
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

/** Sends a chunk's deliveries until none is pending; answers when a later retry was left to another job. */
export async function deliverChunk(range: ChunkRange, { appUrl = getEnv().APP_URL } = {}): Promise<{ sent: number; retryLaterInMs: number | null }> {
  const message = await loadMessage(range.notificationId)
  if (!message) return { sent: 0, retryLaterInMs: null }
  const record = outcomeWriter()
  let sent = 0
  let queue: ClaimedDelivery[] = []
  let exhausted = false
  let refilling: Promise<void> | null = null

  const refill = () =>
    (refilling ??= claim(range, PUSH_CONCURRENCY)
      .then((rows) => {
        queue = queue.concat(rows)
        if (rows.length === 0) exhausted = true
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
      const outcome = await send(delivery, message!, appUrl)
      const retry = outcome.status === 'retry' && delivery.attempts < PUSH_MAX_ATTEMPTS
      const status = outcome.status === 'retry' ? (retry ? 'pending' : 'failed') : outcome.status
      await record({
        id: delivery.id,
        subscriptionId: delivery.subscription_id,
        status,
        error: outcome.error ?? null,
        nextAttemptAt: retry ? new Date(Date.now() + backoffMs(delivery.attempts, outcome.retryAfterMs)) : null,
      })
      if (status === 'sent') sent++
    }
  }

  for (;;) {
    exhausted = false
    await Promise.all(Array.from({ length: PUSH_CONCURRENCY }, slot))
    await dropOrphans(range)
    const wait = await nextClaimableIn(range)
    if (wait === null) break
    if (wait > MAX_IN_JOB_WAIT_MS) {
      await finishIfComplete(range.notificationId)
      return { sent, retryLaterInMs: wait }
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(50, wait)))
  }
  await finishIfComplete(range.notificationId)
  return { sent, retryLaterInMs: null }
}

/** Marks the message done once no delivery is pending, and tells the owner (once) that an owner's message finished. */
export async function finishIfComplete(notificationId: string) {
  const [finished] = await select<{ user_id: string; card_id: string; kind: string; title: string; sent: number; failed: number }>(
    `with done as (
       update notifications n set status = 'done', finished_at = now()
       where n.id = :notificationId and n.status = 'sending'
         and not exists (select 1 from deliveries d where d.notification_id = n.id and d.status = 'pending')
       returning n.id, n.user_id, n.card_id, n.kind, n.title
     )
     select done.user_id, done.card_id, done.kind, done.title,
            (select count(*)::int from deliveries d where d.notification_id = done.id and d.status = 'sent') as sent,
            (select count(*)::int from deliveries d where d.notification_id = done.id and d.status in ('failed', 'gone')) as failed
     from done`,
    { notificationId },
  )
  if (!finished || finished.kind !== 'message') return
  await raiseNotice({
    userId: finished.user_id,
    kind: 'push_finished',
    message: `Your push "${finished.title}" reached ${finished.sent} ${finished.sent === 1 ? 'holder' : 'holders'}${finished.failed ? ` (${finished.failed} could not be reached)` : ''}`.slice(0, 300),
    link: `/account/${finished.card_id}/push_notification/history`,
    dedupeKey: `push_finished:${notificationId}`,
  }).catch((error) => logger.error({ err: error, notificationId }, 'push finished notice failed'))
}

/** Messages that were queued or left mid-send (a restart, a crash): their ids, for the jobs to take up again. */
export async function listUnfinishedNotifications(limit = 1000): Promise<string[]> {
  const rows = await select<{ id: string }>(
    `select id from notifications where status in ('queued', 'sending') order by queued_at nulls first limit :limit`,
    { limit },
  )
  return rows.map((row) => row.id)
}
