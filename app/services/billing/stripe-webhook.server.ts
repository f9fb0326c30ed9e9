import { getEnv } from '#app/server/env.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { queueMail } from '#app/server/mail.server.ts'
import { getStripe, stripeErrorLine, type Stripe } from '#app/server/stripe.server.ts'
import { paymentFailedEmail } from '#app/services/mail/emails.server.ts'
import { claimStripeEvent, findOwnerOfStripeSubscription, setStripeEventOutcome } from '#models/stripe-event.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import { getUserEmail } from '#models/user.server.ts'
import { applyStripeSubscription } from './billing.server.ts'
import { type StripeSubscriptionState } from './stripe-mapping.ts'

/**
 * POST /api/stripe/webhook (docs/product/paying-by-card.md, "Webhook"): Stripe's events, checked against the
 * endpoint's signing secret, each applied once and in any order. An event says which subscription changed; the
 * subscription is then read from Stripe as it is now, so an event replayed late, or older than one already applied,
 * leaves the state Stripe has. The event's id is recorded in the transaction that applies it.
 */
export const MAX_WEBHOOK_BYTES = 64 * 1024
/** Stripe's own default: a signature older than this is refused (a replayed capture). */
const TOLERANCE_SECONDS = 5 * 60
export const HANDLED_EVENTS = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
])

export type WebhookAnswer = { status: number; message: string; outcome?: string }

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : value?.id)

/** The subscription an event is about, its customer, the owner our checkout named, and a failed invoice's time. */
function subjectOf(event: Stripe.Event): {
  subscriptionId?: string
  customerId?: string
  ownerId?: string | null
  failedAt?: Date
} {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object
      return {
        subscriptionId: idOf(session.subscription),
        customerId: idOf(session.customer),
        ownerId: session.client_reference_id,
      }
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const subscription = event.data.object
      return {
        subscriptionId: subscription.id,
        customerId: idOf(subscription.customer),
        ownerId: subscription.metadata?.owner_id,
      }
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const invoice = event.data.object
      return {
        subscriptionId: idOf(invoice.parent?.subscription_details?.subscription),
        customerId: idOf(invoice.customer),
        ownerId: invoice.parent?.subscription_details?.metadata?.owner_id,
        failedAt: event.type === 'invoice.payment_failed' ? new Date(invoice.created * 1000) : undefined,
      }
    }
    default:
      return {}
  }
}

/** What the plan rules need of a Stripe subscription (stripe-mapping.ts). */
export function subscriptionStateOf(subscription: Stripe.Subscription): StripeSubscriptionState {
  const item = subscription.items.data[0]
  return {
    id: subscription.id,
    customerId: idOf(subscription.customer)!,
    status: subscription.status,
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    canceledAt: subscription.canceled_at ? new Date(subscription.canceled_at * 1000) : null,
    lookupKey: item?.price.lookup_key ?? null,
    periodStartsAt: new Date((item?.current_period_start ?? 0) * 1000),
    periodEndsAt: new Date((item?.current_period_end ?? 0) * 1000),
  }
}

export async function receiveStripeWebhook(body: string, signature: string | null): Promise<WebhookAnswer> {
  const stripe = await getStripe()
  if (!stripe) return { status: 404, message: 'Paying by card is off' }
  if (Buffer.byteLength(body) > MAX_WEBHOOK_BYTES) return { status: 413, message: 'The event is larger than 64 KB' }
  if (!signature) return { status: 400, message: 'The Stripe-Signature header is missing' }
  let event: Stripe.Event
  try {
    event = await stripe.webhooks.constructEventAsync(
      body,
      signature,
      getEnv().STRIPE_WEBHOOK_SECRET!,
      TOLERANCE_SECONDS,
    )
  } catch (error) {
    const expired = /tolerance/i.test((error as Error).message)
    return {
      status: 400,
      message: expired
        ? 'The signature is older than 5 minutes'
        : "The signature does not match this endpoint's signing secret",
    }
  }
  if (!HANDLED_EVENTS.has(event.type)) return { status: 200, message: 'Ignored', outcome: `ignored: ${event.type}` }

  const subject = subjectOf(event)
  const readAt = new Date()
  let subscription: Stripe.Subscription | null = null
  if (subject.subscriptionId) {
    try {
      subscription = await stripe.subscriptions.retrieve(subject.subscriptionId)
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) {
        // Stripe sends the event again later (for three days): nothing is recorded, so nothing is lost.
        logger.warn({ eventId: event.id, err: error }, 'a Stripe event waits: its subscription could not be read')
        return { status: 503, message: `The subscription could not be read from Stripe: ${stripeErrorLine(error)}` }
      }
    }
  }

  const applied = await withTransaction(async (transaction) => {
    const claimed = await claimStripeEvent(
      { id: event.id, type: event.type, createdAt: new Date(event.created * 1000) },
      transaction,
    )
    if (!claimed) return { outcome: 'already applied', userId: null }
    const done = async (outcome: string, userId: string | null = null) => {
      await setStripeEventOutcome(event.id, { userId, outcome }, transaction)
      return { outcome, userId }
    }
    if (!subject.subscriptionId) return done('nothing: not about a subscription')
    if (!subscription) return done(`nothing: Stripe has no subscription ${subject.subscriptionId}`)
    const state = subscriptionStateOf(subscription)
    const userId = await findOwnerOfStripeSubscription(
      {
        subscriptionId: state.id,
        customerId: state.customerId,
        ownerId: subject.ownerId ?? subscription.metadata?.owner_id,
      },
      transaction,
    )
    if (!userId) return done(`nothing: no owner pays through customer ${state.customerId}`)
    const result = await applyStripeSubscription(
      { userId, state, cause: `stripe: ${event.type}`, failedAt: subject.failedAt ?? null, readAt },
      transaction,
    )
    if (result.paymentFailed) {
      // In the same transaction as the notice: a process killed after the commit still sends it (the outbox).
      const to = await getUserEmail(userId, transaction)
      if (to) await queueMail({ to, ...paymentFailedEmail(result.paymentFailed) }, { transaction })
    }
    return done(result.outcome, userId)
  })
  logger.info({ eventId: event.id, type: event.type, outcome: applied.outcome }, 'Stripe event')
  return { status: 200, message: 'Applied', outcome: applied.outcome }
}
