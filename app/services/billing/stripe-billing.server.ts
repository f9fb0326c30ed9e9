import { getEnv } from '#app/server/env.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { getStripe, type Stripe } from '#app/server/stripe.server.ts'
import { type CardInvoice } from '#app/utils/payments.ts'
import { getStripeCustomerId, getStripeIds } from '#models/stripe-event.server.ts'

/**
 * The card side of /account/plan (docs/product/paying-by-card.md, "/account/plan"): the saved card, the next charge
 * and Stripe's invoices with their hosted links, read from Stripe when the page is shown; and 'Manage billing', a
 * Billing Portal session (change the card, download invoices, cancel) that returns to the page.
 */
export type CardBilling =
  | {
      available: true
      card: { brand: string; last4: string; expires: string } | null
      /** None once the plan is set to end (cancelled at the period's end, or ended). */
      nextCharge: { at: string; amountCents: number } | null
      invoices: CardInvoice[]
    }
  | { available: false }

const INVOICES_SHOWN = 12
const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

/** Null when the owner has no card subscription; `available: false` when Stripe could not be asked just now. */
export async function getCardBilling(userId: string): Promise<CardBilling | null> {
  const stripe = await getStripe()
  const { subscriptionId, customerId } = await getStripeIds(userId)
  if (!stripe || !subscriptionId || !customerId) return null
  try {
    const subscription = await stripe.subscriptions.retrieve(subscriptionId)
    const method = subscription.default_payment_method
    const [paymentMethod, invoices] = await Promise.all([
      typeof method === 'string' ? stripe.paymentMethods.retrieve(method) : Promise.resolve(method ?? null),
      listInvoices(stripe, customerId),
    ])
    const item = subscription.items.data[0]
    const ending =
      subscription.cancel_at_period_end || !['active', 'trialing', 'past_due'].includes(subscription.status)
    const card = paymentMethod?.card
    return {
      available: true,
      card: card
        ? {
            brand: card.brand,
            last4: card.last4,
            expires: `${String(card.exp_month).padStart(2, '0')}/${card.exp_year}`,
          }
        : null,
      nextCharge:
        item && !ending ? { at: iso(item.current_period_end), amountCents: item.price.unit_amount ?? 0 } : null,
      invoices,
    }
  } catch (error) {
    logger.warn({ err: error, userId }, 'paying by card: the billing details could not be read from Stripe')
    return { available: false }
  }
}

/** The customer's latest invoices at Stripe, newest first, with their hosted links. */
async function listInvoices(stripe: Stripe, customerId: string): Promise<CardInvoice[]> {
  const invoices = await stripe.invoices.list({ customer: customerId, limit: INVOICES_SHOWN })
  return invoices.data.map((invoice) => ({
    id: invoice.id ?? '',
    number: invoice.number ?? '—',
    at: iso(invoice.created),
    amountCents: invoice.status === 'paid' ? invoice.amount_paid : invoice.amount_due,
    status: invoice.status ?? 'draft',
    url: invoice.hosted_invoice_url ?? null,
  }))
}

/**
 * The card invoices of a customer, for the admin's payments list: one call to Stripe (no card, no next charge). Null
 * without paying by card set up; `unavailable` when Stripe could not be asked just now.
 */
export async function getCardInvoices(customerId: string): Promise<CardInvoice[] | 'unavailable' | null> {
  const stripe = await getStripe()
  if (!stripe) return null
  try {
    return await listInvoices(stripe, customerId)
  } catch (error) {
    logger.warn({ err: error, customerId }, 'paying by card: the invoices could not be read from Stripe')
    return 'unavailable'
  }
}

/** A Billing Portal session for the owner's customer, returning to /account/plan; null without a card customer. */
export async function openBillingPortal(userId: string): Promise<{ url: string } | { error: string } | null> {
  const stripe = await getStripe()
  const customer = await getStripeCustomerId(userId)
  if (!stripe || !customer) return null
  try {
    const session = await stripe.billingPortal.sessions.create({
      customer,
      return_url: `${getEnv().APP_URL}/account/plan`,
    })
    return { url: session.url }
  } catch (error) {
    logger.error({ err: error, userId }, 'paying by card: the billing portal could not be opened')
    return { error: 'Billing could not be opened just now: nothing changed. Try again in a minute.' }
  }
}
