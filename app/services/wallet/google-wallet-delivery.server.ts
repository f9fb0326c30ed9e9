import { getEnv } from '#app/server/env.server.ts'
import { getGoogleWalletConfig, type GoogleWalletConfig } from '#app/server/google-wallet-config.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { countDeliveries } from '#app/server/metrics.server.ts'
import { finishMessages } from '#app/services/push/push-delivery.server.ts'
import { retryBackoffMs } from '#app/services/push/retry-backoff.server.ts'
import {
  claimGoogleWalletUpdates,
  failPendingGoogleWalletUpdates,
  nextGoogleWalletUpdateWaitMs,
  GOOGLE_MESSAGES_PER_OBJECT,
  recordGoogleWalletUpdateOutcomes,
  type ClaimedGoogleWalletUpdate,
  type GoogleWalletUpdateOutcome,
} from '#models/google-wallet.server.ts'
import {
  googleError,
  googleWalletClientFor,
  isNotificationQuotaExceeded,
  type GoogleAnswer,
  type GoogleWalletClient,
} from './google-wallet-client.server.ts'
import {
  addMessageRequest,
  googleClassId,
  googleMessageId,
  googleObjectId,
  INACTIVE_PATCH,
  keptMessagesPatch,
  loyaltyClassFor,
  loyaltyObjectStampsPatch,
} from './google-wallet-objects.server.ts'

/**
 * The calls to Google Wallet (docs/product/wallets.md, "Google pass"; docs/decisions/037-google-wallet-updates.md), as
 * durable as web push: rows queued in the transaction that changed the pass or card (migration 0011's triggers), by a
 * message's preparation or before a card ends; claimed with a lease by whichever process runs the job, sent
 * GOOGLE_CONCURRENCY at a time, each outcome written before the next claim. A crash resends only what was in flight
 * (a PATCH twice is the same PATCH; a message twice has the same id). What a call carries is read when it is sent.
 */
export const GOOGLE_CONCURRENCY = 20
export const GOOGLE_LEASE_SECONDS = 30
export const GOOGLE_MAX_ATTEMPTS = 6
/** Google notifies a pass's holder at most this many times in 24 hours; past it a message is shown, not notified. */
export const GOOGLE_NOTIFICATIONS_PER_DAY = 3
/** Retries due within this wait stay in the job; later ones are left to a job scheduled for then. */
const MAX_IN_JOB_WAIT_MS = 10_000
/** With Google Wallet off, a queued call waits this long for it to come back, then fails. */
const OFF_GRACE_MINUTES = 60

type Outcome = { status: 'sent' | 'failed' | 'gone' | 'retry'; error?: string; retryAfterMs?: number }

/** What Google's answer means for the call. */
export function googleUpdateOutcome(answer: GoogleAnswer): Outcome {
  if (answer.status === 200) return { status: 'sent' }
  const error = googleError(answer)
  // 404: deleted on Google's side (or never made): nothing to update.
  if (answer.status === 404) return { status: 'gone', error }
  if (answer.status === 0 || answer.status === 429 || answer.status >= 500)
    return { status: 'retry', error, retryAfterMs: answer.retryAfterMs }
  return { status: 'failed', error }
}

type Sent = { answer: GoogleAnswer; notified: boolean } | { skipped: 'gone' }

/**
 * Makes a call that may notify; when Google refuses the notification (403 quotaExceeded), it is made again without
 * one, so the change or message is shown, not lost (history counts it "shown, not notified").
 */
async function notifyOrPlain(notify: boolean, call: (withNotification: boolean) => Promise<GoogleAnswer>) {
  const answer = await call(notify)
  if (!notify || !isNotificationQuotaExceeded(answer)) return { answer, notified: notify }
  return { answer: await call(false), notified: false }
}

/** Makes one call; `mayNotify` says whether Google's limit leaves room to notify this pass's holder. */
async function send(
  client: GoogleWalletClient,
  update: ClaimedGoogleWalletUpdate,
  config: GoogleWalletConfig,
  mayNotify: boolean,
): Promise<Sent> {
  const { issuerId } = config
  switch (update.kind) {
    case 'class': {
      if (!update.card) return { skipped: 'gone' }
      const body = loyaltyClassFor(update.card, { issuerId, appUrl: getEnv().APP_URL })
      const path = `loyaltyClass/${encodeURIComponent(googleClassId(issuerId, update.card.cardId))}`
      return { answer: await client.request('PATCH', path, body), notified: false }
    }
    case 'object': {
      if (!update.pass || !update.card) return { skipped: 'gone' }
      const notify = update.notify && mayNotify
      const path = `loyaltyObject/${encodeURIComponent(googleObjectId(issuerId, update.passId!))}`
      const patch = (withNotification: boolean) =>
        client.request('PATCH', path, loyaltyObjectStampsPatch(update.pass!.stamps, update.card!, withNotification))
      return notifyOrPlain(notify, patch)
    }
    case 'message': {
      if (!update.message || !update.pass) return { skipped: 'gone' }
      const path = `loyaltyObject/${encodeURIComponent(googleObjectId(issuerId, update.passId!))}`
      // Google keeps at most 10 messages per object and removes none: a full one keeps its newest 9 first.
      if (update.sentMessages.length >= GOOGLE_MESSAGES_PER_OBJECT) {
        const newest = update.sentMessages.slice(-(GOOGLE_MESSAGES_PER_OBJECT - 1))
        const trimmed = await client.request('PATCH', path, keptMessagesPatch(newest))
        if (trimmed.status !== 200) return { answer: trimmed, notified: false }
      }
      const message = { id: googleMessageId(update.notificationId!), ...update.message }
      const add = (withNotification: boolean) =>
        client.request('POST', `${path}/addMessage`, addMessageRequest(message, withNotification))
      return notifyOrPlain(mayNotify, add)
    }
    case 'inactive': {
      const path = `loyaltyObject/${encodeURIComponent(googleObjectId(issuerId, update.passId!))}`
      return { answer: await client.request('PATCH', path, INACTIVE_PATCH), notified: false }
    }
  }
}

/** Sends one claim's calls at once and writes their outcomes in one transaction. */
async function sendClaimed(
  client: GoogleWalletClient,
  config: GoogleWalletConfig,
  claimed: ClaimedGoogleWalletUpdate[],
) {
  // Google's limit per pass, counting the notifications this claim itself makes (two messages to one pass).
  const notificationsOf = new Map<string, number>()
  const mayNotify = (update: ClaimedGoogleWalletUpdate) => {
    const wants = update.kind === 'message' || (update.kind === 'object' && update.notify)
    if (!wants || !update.passId) return false
    const count = notificationsOf.get(update.passId) ?? update.recentNotifications
    if (count >= GOOGLE_NOTIFICATIONS_PER_DAY) return false
    notificationsOf.set(update.passId, count + 1)
    return true
  }
  const outcomes = await Promise.all(
    claimed.map(async (update): Promise<GoogleWalletUpdateOutcome> => {
      const sent = await send(client, update, config, mayNotify(update))
      if ('skipped' in sent)
        return { id: update.id, status: 'gone', error: 'pass or card deleted', nextAttemptAt: null, notified: null }
      const outcome = googleUpdateOutcome(sent.answer)
      const retry = outcome.status === 'retry' && update.attempts < GOOGLE_MAX_ATTEMPTS
      const status = outcome.status === 'retry' ? (retry ? 'pending' : 'failed') : outcome.status
      const gone =
        status === 'gone'
          ? update.kind === 'class'
            ? { goneClassOf: update.cardId! }
            : update.kind !== 'inactive'
              ? { goneObjectOf: update.passId! }
              : {}
          : {}
      return {
        id: update.id,
        status,
        error: outcome.error ?? null,
        nextAttemptAt: retry ? new Date(Date.now() + retryBackoffMs(update.attempts, outcome.retryAfterMs)) : null,
        notified: status === 'sent' ? sent.notified : null,
        ...gone,
      }
    }),
  )
  await recordGoogleWalletUpdateOutcomes(outcomes)
  for (const [index, outcome] of outcomes.entries()) {
    countDeliveries(outcome.status === 'pending' ? 'retry' : outcome.status, 'google')
    if (outcome.status !== 'failed') continue
    // 401 and 403 are about us (the service account's key or its access to the issuer): the operator must act.
    const ours = /^40[13]\b/.test(outcome.error ?? '')
    const log = ours ? logger.error : logger.warn
    log.call(logger, { id: outcome.id, kind: claimed[index]!.kind, error: outcome.error }, 'Google Wallet call failed')
  }
  const settled = claimed.filter((update, index) => update.notificationId && outcomes[index]!.status !== 'pending')
  await finishMessages(settled.map((update) => update.notificationId!))
  return outcomes.filter((outcome) => outcome.status === 'sent').length
}

/**
 * Sends every due pending call until none is left, or only later retries are (answered as `retryLaterInMs`, for a
 * job scheduled then). With Google Wallet turned off, pending calls older than OFF_GRACE_MINUTES fail.
 */
export async function deliverGoogleWalletUpdates({
  config = getGoogleWalletConfig(),
}: { config?: GoogleWalletConfig | null } = {}): Promise<{ sent: number; retryLaterInMs: number | null }> {
  if (!config) {
    await finishMessages(await failPendingGoogleWalletUpdates('Google Wallet is off', OFF_GRACE_MINUTES))
    return { sent: 0, retryLaterInMs: null }
  }
  const client = googleWalletClientFor(config)
  let sent = 0
  for (;;) {
    for (;;) {
      const claimed = await claimGoogleWalletUpdates(GOOGLE_CONCURRENCY, GOOGLE_LEASE_SECONDS)
      if (claimed.length === 0) break
      sent += await sendClaimed(client, config, claimed)
    }
    const wait = await nextGoogleWalletUpdateWaitMs()
    if (wait === null) return { sent, retryLaterInMs: null }
    if (wait > MAX_IN_JOB_WAIT_MS) return { sent, retryLaterInMs: wait }
    await new Promise((resolve) => setTimeout(resolve, Math.max(50, wait)))
  }
}
