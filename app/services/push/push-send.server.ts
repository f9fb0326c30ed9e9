import { enqueuePushMessage } from '#app/server/jobs.server.ts'
import { getPushQuota, pushQuota, type PushQuota } from '#app/services/billing/plan.server.ts'
import { monthStart, planState } from '#app/utils/plan-status.ts'
import { DELIVERY_CHANNELS, totalReach, type PushReach } from '#app/utils/push-channels.ts'
import { countCardAppleWallet } from '#models/apple-registration.server.ts'
import { countCardPushSubscribers } from '#models/card.server.ts'
import { countCardGoogleWallet } from '#models/google-wallet.server.ts'
import {
  countQuotaPushesSince,
  getOwnedNotification,
  queueOwnedDraft,
  type OwnedNotification,
} from '#models/notification.server.ts'
import { spendAdditionalPush } from '#models/push-quota.server.ts'
import { getOwnerSubscription } from '#models/subscription.server.ts'
import { withTransaction } from '#models/transaction.server.ts'

export const NO_QUOTA_LEFT =
  'You have no push messages left this month. Upgrade your plan or ask us for additional messages.'
export const NO_PUSH_ACCESS = 'Your plan has ended: choose a plan to send push messages again.'
export const NO_RECIPIENTS = 'No holder of this card has turned on notifications yet.'
export const NOTIFICATION_NOT_FOUND = 'Message not found'

export type SendRefusal = { ok: false; status: 403 | 404 | 409; message: string }
export type SendResult = { ok: true; notification: OwnedNotification } | SendRefusal

/** One of the owner's notifications on one of their cards, as of `now`. */
type OwnerNotificationAt = { ownerId: string; cardId: string; notificationId: string; now?: Date }

/**
 * Sends one of the owner's drafts: takes one message from the quota (this month's first, then the additional
 * quota; DECISIONS.md) and queues it, in one transaction on the owner's locked subscription row, so two sends at
 * the same moment cannot both take the last message. Sending a message twice (a double click, a resubmitted form)
 * sends it once. Delivery then runs in the job queue (push-delivery.server.ts).
 */
export async function sendOwnerNotification({
  ownerId,
  cardId,
  notificationId,
  now = new Date(),
}: OwnerNotificationAt): Promise<SendResult> {
  const existing = await getOwnedNotification({ ownerId, cardId, notificationId })
  if (!existing || existing.kind !== 'message') return { ok: false, status: 404, message: NOTIFICATION_NOT_FOUND }
  if (existing.status !== 'draft') return { ok: true, notification: existing }
  const recipients = totalReach(await countCardReach({ cardId, ownerId }))
  if (recipients === 0) return { ok: false, status: 409, message: NO_RECIPIENTS }

  const refusal = await withTransaction(async (transaction): Promise<SendRefusal | null> => {
    const subscription = await getOwnerSubscription(ownerId, { transaction, lock: true })
    if (!subscription) return { ok: false, status: 404, message: NOTIFICATION_NOT_FOUND }
    const state = planState(subscription, now)
    const quota = pushQuota(state, await countQuotaPushesSince(ownerId, monthStart(now), transaction))
    if (quota.totalLeft <= 0)
      return { ok: false, status: 403, message: state.canUsePush ? NO_QUOTA_LEFT : NO_PUSH_ACCESS }
    const source = quota.monthlyLeft > 0 ? 'monthly' : 'additional'
    const queued = await queueOwnedDraft({ ownerId, cardId, notificationId, now, source, recipients }, transaction)
    // Sent meanwhile by another request: it took the quota already.
    if (queued && source === 'additional') {
      await spendAdditionalPush({ subscriptionId: subscription.id, ownerId }, transaction)
    }
    return null
  })
  if (refusal) return refusal
  await enqueuePushMessage(notificationId)
  return { ok: true, notification: (await getOwnedNotification({ ownerId, cardId, notificationId }))! }
}

/**
 * The devices a message to the card's holders would reach now: browsers with notifications on (one per endpoint),
 * Apple Wallet devices holding one of its passes, and passes saved in Google Wallet. A holder with several counts on
 * each.
 */
export async function countCardReach({ cardId, ownerId }: { cardId: string; ownerId: string }): Promise<PushReach> {
  const [web, appleWallet, googleWallet] = await Promise.all([
    countCardPushSubscribers({ cardId, userId: ownerId }),
    countCardAppleWallet({ cardId, userId: ownerId }),
    countCardGoogleWallet({ cardId, userId: ownerId }),
  ])
  return { web, appleWallet: appleWallet.devices, googleWallet }
}

export type PushConfirmData = {
  notification: OwnedNotification
  /** Every channel's devices together. */
  recipients: number
  reach: PushReach
  quota: PushQuota
}

/** What the confirm page and its JSON call show: the message, who receives it, and the quota used and left. */
export async function getPushConfirmData({
  ownerId,
  cardId,
  notificationId,
  now = new Date(),
}: OwnerNotificationAt): Promise<PushConfirmData | null> {
  const notification = await getOwnedNotification({ ownerId, cardId, notificationId })
  if (!notification) return null
  const subscription = await getOwnerSubscription(ownerId)
  if (!subscription) return null
  const [reach, quota] = await Promise.all([
    notification.status === 'draft' ? countCardReach({ cardId, ownerId }) : Promise.resolve(sentReach(notification)),
    getPushQuota(ownerId, planState(subscription, now), now),
  ])
  return { notification, recipients: totalReach(reach), reach, quota }
}

/** A sent message's reach: the devices each channel is sending (or sent) it to. */
function sentReach(notification: OwnedNotification): PushReach {
  const { channels } = notification.progress
  const entries = DELIVERY_CHANNELS.map((channel) => {
    const counts = channels[channel]
    return [channel, counts.sent + counts.failed + counts.pending] as const
  })
  return Object.fromEntries(entries) as PushReach
}
