import { getStripe, stripeErrorLine, type Stripe } from '#app/server/stripe.server.ts'
import { listTariffs, type PublicTariff } from '#models/tariff.server.ts'

/**
 * The six Stripe prices of the plans (docs/product/paying-by-card.md, "Prices"): found by lookup key
 * `stampwise_{basic|standard|premium}_{month|year}`, in USD, at the amounts of the plans table. `npm run stripe:setup`
 * makes what is missing; the server's start checks that all six are there.
 */
export type StripePeriod = 'month' | 'year'
export const STRIPE_PERIODS: StripePeriod[] = ['month', 'year']
const PLAN_KEYS: Record<number, string> = { 1: 'basic', 2: 'standard', 3: 'premium' }
const CURRENCY = 'usd'

export const stripeLookupKey = (tier: number, period: StripePeriod) => `stampwise_${PLAN_KEYS[tier]}_${period}`
/** The plan's product at Stripe, by an id of ours: making it twice is refused, so no listing is needed to find it. */
export const stripeProductId = (tier: number) => `stampwise_${PLAN_KEYS[tier]}`
const amountOf = (tariff: PublicTariff, period: StripePeriod) =>
  period === 'month' ? tariff.monthlyPriceCents : tariff.yearlyPriceCents

/** The plans that have a price at Stripe (the tiers of the lookup keys). */
async function paidTariffs(): Promise<PublicTariff[]> {
  return (await listTariffs()).filter((tariff) => PLAN_KEYS[tariff.tier])
}

/** Every lookup key the plans need. */
export async function stripeLookupKeys(): Promise<string[]> {
  return (await paidTariffs()).flatMap((tariff) => STRIPE_PERIODS.map((period) => stripeLookupKey(tariff.tier, period)))
}

/** The active prices with these lookup keys, by key. */
export async function findStripePrices(stripe: Stripe, keys: string[]): Promise<Map<string, Stripe.Price>> {
  const found = new Map<string, Stripe.Price>()
  if (keys.length === 0) return found
  const prices = await stripe.prices.list({ lookup_keys: keys, active: true, limit: 100 })
  for (const price of prices.data) if (price.lookup_key) found.set(price.lookup_key, price)
  return found
}

export type StripePriceCheck =
  | { ok: true }
  | {
      ok: false
      line: string
      /** Stripe could not be asked (down, or a network problem), as opposed to a wrong setup. */
      unreachable?: boolean
    }

/**
 * At start, with paying by card on: every price the plans need exists at Stripe, in USD at the plan's amount. One line
 * naming what is wrong otherwise (a missing price, a refused key), or that Stripe could not be asked.
 */
export async function checkStripePrices(): Promise<StripePriceCheck> {
  const stripe = await getStripe()
  if (!stripe) return { ok: true }
  const tariffs = await paidTariffs()
  let found: Map<string, Stripe.Price>
  try {
    found = await findStripePrices(stripe, await stripeLookupKeys())
  } catch (error) {
    const line = stripeErrorLine(error)
    const type = (error as { type?: string }).type
    return { ok: false, line, unreachable: type === 'StripeConnectionError' || type === 'StripeAPIError' }
  }
  for (const tariff of tariffs) {
    for (const period of STRIPE_PERIODS) {
      const key = stripeLookupKey(tariff.tier, period)
      const price = found.get(key)
      if (!price) return { ok: false, line: `Stripe has no price ${key}: run npm run stripe:setup` }
      if (price.currency !== CURRENCY || price.unit_amount !== amountOf(tariff, period)) {
        return {
          ok: false,
          line: `Stripe's price ${key} is not ${amountOf(tariff, period) / 100} USD: run npm run stripe:setup`,
        }
      }
    }
  }
  return { ok: true }
}

export type StripeSetupResult = { created: string[]; kept: string[] }

/**
 * Makes the plans' products and prices that Stripe does not have yet (`npm run stripe:setup`); run twice, the second
 * run makes nothing. A price whose amount no longer matches its plan (an admin changed the plan's price) is replaced:
 * a new price takes over the lookup key (Stripe's prices cannot change their amount); subscriptions keep the price
 * they have until they change plan.
 */
export async function setUpStripePrices(stripe: Stripe): Promise<StripeSetupResult> {
  const result: StripeSetupResult = { created: [], kept: [] }
  const tariffs = await paidTariffs()
  const found = await findStripePrices(stripe, await stripeLookupKeys())
  for (const tariff of tariffs) {
    const wanted = STRIPE_PERIODS.map((period) => ({ period, key: stripeLookupKey(tariff.tier, period) }))
    const missing = wanted.filter(({ period, key }) => {
      const price = found.get(key)
      return !price || price.currency !== CURRENCY || price.unit_amount !== amountOf(tariff, period)
    })
    for (const { key } of wanted) if (!missing.some((entry) => entry.key === key)) result.kept.push(key)
    if (missing.length === 0) continue
    const productId = await ensureProduct(stripe, tariff, result)
    for (const { period, key } of missing) {
      await stripe.prices.create({
        product: productId,
        currency: CURRENCY,
        unit_amount: amountOf(tariff, period),
        recurring: { interval: period },
        lookup_key: key,
        transfer_lookup_key: found.has(key),
        nickname: `${tariff.name}, ${period === 'month' ? 'monthly' : 'yearly'}`,
        tax_behavior: 'exclusive',
      })
      result.created.push(`price ${key}`)
    }
  }
  return result
}

async function ensureProduct(stripe: Stripe, tariff: PublicTariff, result: StripeSetupResult): Promise<string> {
  const id = stripeProductId(tariff.tier)
  try {
    await stripe.products.create({ id, name: `Stampwise ${tariff.name}` })
    result.created.push(`product ${id}`)
  } catch (error) {
    if ((error as { code?: string }).code !== 'resource_already_exists') throw error
  }
  return id
}
