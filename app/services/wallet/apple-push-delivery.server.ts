import { getAppleWalletConfig, type AppleWalletConfig } from '#app/server/apple-wallet-config.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { countDeliveries } from '#app/server/metrics.server.ts'
import { finishMessages } from '#app/services/push/push-delivery.server.ts'
import { retryBackoffMs } from '#app/services/push/retry-backoff.server.ts'
import {
  claimApplePushes,
  failPendingApplePushes,
  markOrphanApplePushesGone,
  nextApplePushWaitMs,
  recordApplePushOutcomes,
  type ApplePushOutcome,
  type ClaimedApplePush,
} from '#models/apple-push.server.ts'
import { createApnsClient, type ApnsAnswer, type ApnsClient } from './apns-client.server.ts'

/**
 * APNs pushes to Apple Wallet devices (docs/product/wallets.md, "Apple updates";
 * docs/decisions/036-apple-wallet-updates.md), as durable as web push: the rows are queued in the transaction that
 * changed the pass (migration 0010's triggers, or a message's preparation), claimed with a lease by whichever process
 * runs the job, sent over one HTTP/2 connection with APPLE_PUSH_CONCURRENCY requests in flight, and each outcome is
 * written before that slot sends again. After a crash only the in-flight pushes are sent again (their leases run out):
 * a device told twice fetches the same pass twice, harmlessly. The push carries nothing: the device asks the web
 * service what changed.
 */
export const APPLE_PUSH_CONCURRENCY = 20
export const APPLE_PUSH_LEASE_SECONDS = 30
export const APPLE_PUSH_MAX_ATTEMPTS = 6
export const APPLE_PUSH_TIMEOUT_MS = 10_000
/**
 * Retries due within this wait stay in the job; later ones (and pushes another process holds the lease of, which
 * may have crashed) are left to a job scheduled for then.
 */
const MAX_IN_JOB_WAIT_MS = 10_000

// One client (one HTTP/2 connection) per process and configuration, reused by every job run.
const CLIENT = Symbol.for('stampwise.apns-client')
type Global = { [CLIENT]?: { config: AppleWalletConfig; client: ApnsClient } }

function apnsClientFor(config: AppleWalletConfig): ApnsClient {
  const held = (globalThis as Global)[CLIENT]
  if (held?.config === config) return held.client
  void held?.client.close()
  const client = createApnsClient({
    origin: config.apns.origin,
    topic: config.passTypeId,
    timeoutMs: APPLE_PUSH_TIMEOUT_MS,
    // Token authentication when an APNs key is set; otherwise the pass certificate is the TLS client certificate.
    auth: config.apns.keyId
      ? { kind: 'token', teamId: config.teamId, keyId: config.apns.keyId, privateKeyPem: config.apns.privateKeyPem }
      : { kind: 'certificate', certPem: config.certPem, keyPem: config.keyPem, passphrase: config.keyPassphrase },
  })
  ;(globalThis as Global)[CLIENT] = { config, client }
  return client
}

/** Closes this process's APNs connection (at shutdown). */
export async function closeApnsClient() {
  const held = (globalThis as Global)[CLIENT]
  delete (globalThis as Global)[CLIENT]
  await held?.client.close()
}

type Outcome = { status: 'sent' | 'failed' | 'gone' | 'retry'; error?: string; retryAfterMs?: number }

/** What APNs's answer means for the push (Apple's "Handling notification responses from APNs"). */
export function applePushOutcome(answer: ApnsAnswer): Outcome {
  if (answer.status === 0) return { status: 'retry', error: 'error' in answer ? answer.error : 'network error' }
  const reason = 'reason' in answer && answer.reason ? ` ${answer.reason}` : ''
  if (answer.status === 200) return { status: 'sent' }
  // 410: the device no longer takes pushes for this token; a token APNs calls bad will never work either.
  if (answer.status === 410 || (answer.status === 400 && /BadDeviceToken|DeviceTokenNotForTopic/.test(reason)))
    return { status: 'gone', error: `${answer.status}${reason}` }
  if (answer.status === 429 || answer.status >= 500)
    return {
      status: 'retry',
      error: `${answer.status}${reason}`,
      retryAfterMs: 'retryAfterMs' in answer ? answer.retryAfterMs : undefined,
    }
  return { status: 'failed', error: `${answer.status}${reason}` }
}

/** With Apple Wallet off, a queued push waits this long for it to come back, then fails. */
const OFF_GRACE_MINUTES = 60

/**
 * Sends every due pending push until none is left, or only later retries are (answered as `retryLaterInMs`, for a
 * job scheduled then). With Apple Wallet turned off, pending pushes older than OFF_GRACE_MINUTES fail (nothing could
 * send them, and their messages must finish).
 */
export async function deliverApplePushes({
  config = getAppleWalletConfig(),
}: { config?: AppleWalletConfig | null } = {}): Promise<{ sent: number; retryLaterInMs: number | null }> {
  if (!config) {
    await finishMessages(await failPendingApplePushes('Apple Wallet is off', OFF_GRACE_MINUTES))
    return { sent: 0, retryLaterInMs: null }
  }
  const client = apnsClientFor(config)
  let sent = 0
  for (;;) {
    await finishMessages(await markOrphanApplePushesGone())
    for (;;) {
      const claimed = await claimApplePushes(APPLE_PUSH_CONCURRENCY, APPLE_PUSH_LEASE_SECONDS)
      if (claimed.length === 0) break
      sent += await sendClaimed(client, claimed)
    }
    const wait = await nextApplePushWaitMs()
    if (wait === null) return { sent, retryLaterInMs: null }
    if (wait > MAX_IN_JOB_WAIT_MS) return { sent, retryLaterInMs: wait }
    await new Promise((resolve) => setTimeout(resolve, Math.max(50, wait)))
  }
}

/** Sends one claim's pushes at once (one connection, many streams) and writes their outcomes in one statement. */
async function sendClaimed(client: ApnsClient, claimed: ClaimedApplePush[]): Promise<number> {
  const outcomes = await Promise.all(
    claimed.map(async (push): Promise<ApplePushOutcome> => {
      const outcome = applePushOutcome(await client.send(push.push_token))
      const retry = outcome.status === 'retry' && push.attempts < APPLE_PUSH_MAX_ATTEMPTS
      const status = outcome.status === 'retry' ? (retry ? 'pending' : 'failed') : outcome.status
      return {
        id: push.id,
        deviceId: push.device_id,
        status,
        error: outcome.error?.slice(0, 200) ?? null,
        nextAttemptAt: retry ? new Date(Date.now() + retryBackoffMs(push.attempts, outcome.retryAfterMs)) : null,
      }
    }),
  )
  await recordApplePushOutcomes(outcomes)
  let credentialsRefused: string | null = null
  for (const outcome of outcomes) {
    countDeliveries(outcome.status === 'pending' ? 'retry' : outcome.status, 'apple')
    if (outcome.status !== 'failed') continue
    // 403 is about us, not the device (an expired key or certificate): the operator must act.
    if (outcome.error?.startsWith('403')) credentialsRefused = outcome.error
    else logger.warn({ id: outcome.id, error: outcome.error }, 'Apple Wallet push failed')
  }
  if (credentialsRefused)
    logger.error(
      { error: credentialsRefused },
      'APNs refused our credentials: check APNS_KEY_ID/APNS_PRIVATE_KEY or the pass certificate',
    )
  const settled = claimed.filter((push, index) => push.notification_id && outcomes[index]!.status !== 'pending')
  await finishMessages(settled.map((push) => push.notification_id!))
  return outcomes.filter((outcome) => outcome.status === 'sent').length
}
