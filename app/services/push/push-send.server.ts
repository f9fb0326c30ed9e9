import { type Transaction } from 'sequelize'
import { startPushMessage } from '#app/server/job-queue.server.ts'
import { getPushQuota, pushQuota, type PushQuota } from '#app/services/billing/plan.server.ts'
import { type Audience } from '#app/utils/audience.ts'
import { monthStart, planState } from '#app/utils/plan-status.ts'
import { DELIVERY_CHANNELS, totalReach, type PushReach } from '#app/utils/push-channels.ts'
import { audienceHasDevice, countAudienceReach } from '#models/holder-audience.server.ts'
import {
  countQuotaPushesSince,
  getOwnedNotification,
  queueOwnedDraft,
  setQueuedRecipients,
  type OwnedNotification,
} from '#models/notification.server.ts'
import { spendAdditionalPush } from '#models/push-quota.server.ts'
import { getOwnerSubscription } from '#models/subscription.server.ts'
import { withTransaction } from '#models/transaction.server.ts'

export const NO_QUOTA_LEFT =
  'You have no push messages left this month. Upgrade your plan or ask us for additional messages.'
export const NO_PUSH_ACCESS = 'Your plan has ended: choose a plan to send push messages again.'
export const NO_RECIPIENTS = 'No holder of this card has turned on notifications yet.'
export const NO_AUDIENCE = 'No holder in this audience can be reached: choose another audience.'
export const NOTIFICATION_NOT_FOUND = 'Message not found'

export type SendRefusal = { ok: false; status: 403 | 404 | 409; message: string }
export type SendResult = { ok: true; notification: OwnedNotification } | SendRefusal

/** One of the owner's notifications on one of their cards, as of `now`. */
type OwnerNotificationAt = { ownerId: string; cardId: string; notificationId: string; now?: Date }

/** Why the quota refused a message: none left this month (nor additional), or the plan ended. */
export type QuotaRefusal = 'no_quota' | 'no_access' | 'no_subscription'

/**
 * Takes one message from the owner's quota (this month's first, then the additional quota;
 * docs/product/plans-and-limits.md, "Push quota") for a message `queue` marks queued, inside the caller's transaction
 * and on the owner's locked subscription row, so two messages going at the same moment (a Send, a scheduled one falling
 * due) cannot both take the last one. `queue` answers false when the message went meanwhile (another request or process
 * took its quota): nothing is taken. Answers null when queued (or gone already), else why not.
 */
export async function queueWithQuota(
  { ownerId, now }: { ownerId: string; now: Date },
  queue: (source: 'monthly' | 'additional') => Promise<boolean>,
  transaction: Transaction,
): Promise<QuotaRefusal | null> {
  const subscription = await getOwnerSubscription(ownerId, { transaction, lock: true })
  if (!subscription) return 'no_subscription'
  const state = planState(subscription, now)
  const quota = pushQuota(state, await countQuotaPushesSince(ownerId, monthStart(now), transaction))
  if (quota.totalLeft <= 0) return state.canUsePush ? 'no_quota' : 'no_access'
  const source = quota.monthlyLeft > 0 ? 'monthly' : 'additional'
  if ((await queue(source)) && source === 'additional') {
    await spendAdditionalPush({ subscriptionId: subscription.id, ownerId }, transaction)
  }
  return null
}

const REFUSALS: Record<QuotaRefusal, SendRefusal> = {
  no_subscription: { ok: false, status: 404, message: NOTIFICATION_NOT_FOUND },
  no_quota: { ok: false, status: 403, message: NO_QUOTA_LEFT },
  no_access: { ok: false, status: 403, message: NO_PUSH_ACCESS },
}

/**
 * Sends one of the owner's drafts to an audience of the card's holders: takes the quota and queues it in one
 * transaction (queueWithQuota). Sending a message twice (a double click, a resubmitted form) sends it once.
 * Delivery then runs in the job queue (push-delivery.server.ts).
 */
export async function sendOwnerNotification({
  ownerId,
  cardId,
  notificationId,
  audience = 'all',
  now = new Date(),
}: OwnerNotificationAt & { audience?: Audience }): Promise<SendResult> {
  const existing = await getOwnedNotification({ ownerId, cardId, notificationId })
  if (!existing || existing.kind !== 'message') return { ok: false, status: 404, message: NOTIFICATION_NOT_FOUND }
  if (existing.status !== 'draft') return { ok: true, notification: existing }
  if (!(await audienceHasDevice({ cardId, ownerId, audience }))) {
    return { ok: false, status: 409, message: audience === 'all' ? NO_RECIPIENTS : NO_AUDIENCE }
  }

  const refusal = await withTransaction((transaction) =>
    queueWithQuota(
      { ownerId, now },
      (source) =>
        queueOwnedDraft({ ownerId, cardId, notificationId, now, source, recipients: null, audience }, transaction),
      transaction,
    ),
  )
  if (refusal) return REFUSALS[refusal]
  // The message starts before its audience is counted: a large one's count would hold its first devices back.
  await startPushMessage(notificationId)
  await setQueuedRecipients(notificationId, totalReach((await countAudienceReach({ cardId, ownerId, audience })).reach))
  return { ok: true, notification: (await getOwnedNotification({ ownerId, cardId, notificationId }))! }
}

export type PushConfirmData = {
  notification: OwnedNotification
  /** Every channel's devices together. */
  recipients: number
  reach: PushReach
  /** The audience shown: the one asked for (a draft), else the message's own. */
  audience: Audience
  /** A draft's audience: its holders, and those of them with a device (null once sent). */
  holders: { inAudience: number; reached: number } | null
  quota: PushQuota
}

/**
 * What the confirm page and its JSON call show: the message, who receives it (for a draft, the audience asked for,
 * else the one stored), and the quota used and left.
 */
export async function getPushConfirmData({
  ownerId,
  cardId,
  notificationId,
  audience,
  now = new Date(),
}: OwnerNotificationAt & { audience?: Audience }): Promise<PushConfirmData | null> {
  const notification = await getOwnedNotification({ ownerId, cardId, notificationId })
  if (!notification) return null
  const subscription = await getOwnerSubscription(ownerId)
  if (!subscription) return null
  // A scheduled message shows its reach now; a sent one the devices it went to.
  const live = notification.status === 'draft' || notification.status === 'scheduled'
  const shown = notification.status === 'draft' ? (audience ?? notification.audience) : notification.audience
  const [audienceReach, quota] = await Promise.all([
    live ? countAudienceReach({ cardId, ownerId, audience: shown }) : Promise.resolve(null),
    getPushQuota(ownerId, planState(subscription, now), now),
  ])
  const reach = audienceReach ? audienceReach.reach : sentReach(notification)
  return {
    notification,
    recipients: totalReach(reach),
    reach,
    audience: shown,
    holders: audienceReach ? { inAudience: audienceReach.holders, reached: audienceReach.reachedHolders } : null,
    quota,
  }
}

/** A message as the confirm page and its JSON call hand it to the browser: its own fields, dates as ISO strings. */
export function notificationView(notification: OwnedNotification) {
  return {
    id: notification.id,
    title: notification.title,
    body: notification.body,
    link: notification.link,
    status: notification.status,
    audience: notification.audience,
    queuedAt: notification.queuedAt?.toISOString() ?? null,
    finishedAt: notification.finishedAt?.toISOString() ?? null,
    scheduledFor: notification.scheduledFor?.toISOString() ?? null,
    skippedReason: notification.skippedReason,
    progress: notification.progress,
  }
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
