import { logger } from '#app/server/logger.server.ts'
import { getStripe, type Stripe } from '#app/server/stripe.server.ts'
import { getStripeSubscriptionId } from '#models/stripe-event.server.ts'
import { getOwnerSubscription } from '#models/subscription.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import { applyStripeSubscription } from './billing.server.ts'
import { CARD_UNAVAILABLE } from './stripe-checkout.server.ts'
import { findStripePrices, stripeLookupKey } from './stripe-prices.server.ts'
import { subscriptionStateOf } from './stripe-webhook.server.ts'

/**
 * An owner who pays by card changes plan or period, or cancels, at Stripe (docs/product/paying-by-card.md,
 * "/account/plan": a subscription update with Stripe's proration; cancelling is at the period's end). Stripe's answer
 * is the subscription as it now is, applied to the plan at once through the same rules as the webhook's (whose own
 * event for the change then finds nothing to do).
 */
export type CardPlanChange =
  { ok: true; status: string; periodEndsAt: Date } | { ok: false; status: 409 | 503; message: string }

export const NOT_BY_CARD = 'Your plan is not paid by card.'

async function applyNow(userId: string, subscription: Stripe.Subscription, cause: string): Promise<CardPlanChange> {
  const state = subscriptionStateOf(subscription)
  await withTransaction((transaction) =>
    applyStripeSubscription({ userId, state, cause, readAt: new Date() }, transaction),
  )
  return { ok: true, status: subscription.status, periodEndsAt: state.periodEndsAt }
}

export async function changeCardPlan({
  userId,
  tier,
  periodMonths,
}: {
  userId: string
  tier: number
  periodMonths: 1 | 12
}): Promise<CardPlanChange> {
  const stripe = await getStripe()
  const subscriptionId = await getStripeSubscriptionId(userId)
  if (!stripe || !subscriptionId) return { ok: false, status: 409, message: NOT_BY_CARD }
  const key = stripeLookupKey(tier, periodMonths === 12 ? 'year' : 'month')
  try {
    const price = (await findStripePrices(stripe, [key])).get(key)
    const current = await stripe.subscriptions.retrieve(subscriptionId)
    const item = current.items.data[0]
    if (!price || !item) return { ok: false, status: 503, message: CARD_UNAVAILABLE }
    const updated = await stripe.subscriptions.update(subscriptionId, {
      items: [{ id: item.id, price: price.id }],
      proration_behavior: 'create_prorations',
      // Choosing a plan again undoes a cancellation at the period's end.
      cancel_at_period_end: false,
    })
    return await applyNow(userId, updated, `owner changed plan by card: ${key}`)
  } catch (error) {
    logger.error({ err: error, userId }, 'paying by card: the plan could not be changed')
    return { ok: false, status: 503, message: CARD_UNAVAILABLE }
  }
}

export async function cancelCardPlan({ userId }: { userId: string }): Promise<CardPlanChange> {
  const stripe = await getStripe()
  const subscriptionId = await getStripeSubscriptionId(userId)
  if (!stripe || !subscriptionId) return { ok: false, status: 409, message: NOT_BY_CARD }
  try {
    const updated = await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
    return await applyNow(userId, updated, 'owner cancelled the card plan at the period’s end')
  } catch (error) {
    logger.error({ err: error, userId }, 'paying by card: the plan could not be cancelled')
    return { ok: false, status: 503, message: CARD_UNAVAILABLE.replace('nothing was charged', 'nothing changed') }
  }
}

/** Whether the owner's plan is paid by card now (active, cancelled before its end, or its renewal failing). */
export async function paysByCardNow(userId: string): Promise<boolean> {
  const subscription = await getOwnerSubscription(userId)
  return subscription?.provider === 'stripe' && ['active', 'cancelled', 'waiting_payment'].includes(subscription.status)
}
