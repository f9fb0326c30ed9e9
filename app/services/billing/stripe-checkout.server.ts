import { getEnv } from '#app/server/env.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { getStripe, type Stripe } from '#app/server/stripe.server.ts'
import { getStripeCustomerId, keepStripeCustomerId } from '#models/stripe-event.server.ts'
import { getOwnerSubscription } from '#models/subscription.server.ts'
import { getUserEmail } from '#models/user.server.ts'
import { findStripePrices, stripeLookupKey } from './stripe-prices.server.ts'

/**
 * 'Pay by card' on /account/tariffs (docs/product/paying-by-card.md, "Choosing a plan by card"): a Checkout Session in
 * subscription mode for the plan's price, for the owner's one Stripe customer (made once and kept), with promotion
 * codes allowed; chosen during the trial, the first charge is at the trial's end. The owner is sent to Stripe's page;
 * nothing changes here until the webhook hears from Stripe (the return address only says the payment is being
 * confirmed).
 */
export type CardCheckout = { ok: true; url: string } | { ok: false; status: 409 | 503; message: string }

export const CARD_UNAVAILABLE = 'Paying by card is not available right now: nothing was charged. Try again in a minute.'
export const ALREADY_BY_CARD = 'You already pay by card: your plan is managed with your card.'
/** Stripe's rule: a trial set at checkout must end at least 48 hours after it. A shorter rest is charged at once. */
const MIN_TRIAL_MS = 49 * 60 * 60 * 1000

async function ensureCustomer(stripe: Stripe, userId: string): Promise<string> {
  const kept = await getStripeCustomerId(userId)
  if (kept) return kept
  const email = await getUserEmail(userId)
  // The key makes a repeated create (a double click, a retry) answer the same customer instead of a second one.
  const customer = await stripe.customers.create(
    { email: email ?? undefined, metadata: { owner_id: userId } },
    { idempotencyKey: `stampwise-customer-${userId}` },
  )
  return (await keepStripeCustomerId(userId, customer.id)) ?? customer.id
}

export async function startCardCheckout({
  userId,
  tier,
  periodMonths,
  now = new Date(),
}: {
  userId: string
  tier: number
  periodMonths: 1 | 12
  now?: Date
}): Promise<CardCheckout> {
  const stripe = await getStripe()
  if (!stripe) return { ok: false, status: 409, message: 'Paying by card is not available.' }
  const subscription = await getOwnerSubscription(userId)
  if (subscription?.provider === 'stripe' && ['active', 'cancelled', 'waiting_payment'].includes(subscription.status)) {
    return { ok: false, status: 409, message: ALREADY_BY_CARD }
  }
  const period = periodMonths === 12 ? 'year' : 'month'
  const key = stripeLookupKey(tier, period)
  const { APP_URL, STRIPE_AUTOMATIC_TAX } = getEnv()
  try {
    const price = (await findStripePrices(stripe, [key])).get(key)
    if (!price) {
      logger.error({ lookupKey: key }, 'paying by card: Stripe has no such price (npm run stripe:setup)')
      return { ok: false, status: 503, message: CARD_UNAVAILABLE }
    }
    const customer = await ensureCustomer(stripe, userId)
    const inTrial =
      subscription !== null &&
      (subscription.status === 'trial' || subscription.status === 'waiting_payment') &&
      subscription.periodStartsAt === null &&
      subscription.trialEndsAt.getTime() - now.getTime() >= MIN_TRIAL_MS
    const metadata = { owner_id: userId, tier: String(tier), period }
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer,
      client_reference_id: userId,
      metadata,
      line_items: [{ price: price.id, quantity: 1 }],
      allow_promotion_codes: true,
      subscription_data: {
        metadata,
        ...(inTrial ? { trial_end: Math.floor(subscription.trialEndsAt.getTime() / 1000) } : {}),
      },
      ...(STRIPE_AUTOMATIC_TAX ? { automatic_tax: { enabled: true }, customer_update: { address: 'auto' } } : {}),
      success_url: `${APP_URL}/account/plan?checkout={CHECKOUT_SESSION_ID}`,
      cancel_url: `${APP_URL}/account/tariffs`,
    })
    if (!session.url) return { ok: false, status: 503, message: CARD_UNAVAILABLE }
    return { ok: true, url: session.url }
  } catch (error) {
    logger.error({ err: error, userId }, 'paying by card: the checkout could not be started')
    return { ok: false, status: 503, message: CARD_UNAVAILABLE }
  }
}
