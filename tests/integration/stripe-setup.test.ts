import { afterEach, describe, expect, test } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { getStripe } from '#app/server/stripe.server.ts'
import { checkStripePrices, setUpStripePrices } from '#app/services/billing/stripe-prices.server.ts'
import { sql } from '#tests/support/auth-api.ts'
import { killChildren, runTsToEnd } from '#tests/support/child-process.ts'
import { useStripePeer } from '#tests/support/stripe-peer-hooks.ts'
import { startStripePeer } from '#tests/support/stripe-peer.ts'

/*
 * Issue 33, item 1 (docs/product/paying-by-card.md, "Prices"): `npm run stripe:setup` makes the three plans' products
 * and six prices at Stripe by lookup key, in USD at the plans table's amounts, and a second run makes nothing; the
 * start's check names a missing or wrong price, a refused key, and tells Stripe out of reach apart. Against the
 * Stripe peer, through the official package; the peer records any call outside the contract.
 */
const peer = useStripePeer({ prices: false })
afterEach(killChildren)

const KEYS = [
  'stampwise_basic_month',
  'stampwise_basic_year',
  'stampwise_standard_month',
  'stampwise_standard_year',
  'stampwise_premium_month',
  'stampwise_premium_year',
]
const byKey = () =>
  Object.fromEntries(
    peer
      .prices()
      .filter((price) => price.lookup_key)
      .map((price) => [
        price.lookup_key!,
        {
          amount: price.unit_amount,
          interval: price.recurring.interval,
          product: price.product,
          currency: price.currency,
        },
      ]),
  )

describe('Stripe prices', () => {
  test('the start check names the first missing price before setup, and passes after it', async () => {
    expect(await checkStripePrices()).toEqual({
      ok: false,
      line: 'Stripe has no price stampwise_basic_month: run npm run stripe:setup',
    })
    const stripe = (await getStripe())!
    const first = await setUpStripePrices(stripe)
    expect(first.created).toEqual([
      'product stampwise_basic',
      'price stampwise_basic_month',
      'price stampwise_basic_year',
      'product stampwise_standard',
      'price stampwise_standard_month',
      'price stampwise_standard_year',
      'product stampwise_premium',
      'price stampwise_premium_month',
      'price stampwise_premium_year',
    ])
    expect(byKey()).toEqual({
      stampwise_basic_month: { amount: 1900, interval: 'month', product: 'stampwise_basic', currency: 'usd' },
      stampwise_basic_year: { amount: 19000, interval: 'year', product: 'stampwise_basic', currency: 'usd' },
      stampwise_standard_month: { amount: 3900, interval: 'month', product: 'stampwise_standard', currency: 'usd' },
      stampwise_standard_year: { amount: 39000, interval: 'year', product: 'stampwise_standard', currency: 'usd' },
      stampwise_premium_month: { amount: 7900, interval: 'month', product: 'stampwise_premium', currency: 'usd' },
      stampwise_premium_year: { amount: 79000, interval: 'year', product: 'stampwise_premium', currency: 'usd' },
    })
    expect(await checkStripePrices()).toEqual({ ok: true })

    // Run twice: nothing new.
    const pricesBefore = peer.prices().length
    expect(await setUpStripePrices(stripe)).toEqual({ created: [], kept: KEYS })
    expect(peer.prices()).toHaveLength(pricesBefore)
    expect(peer.products()).toHaveLength(3)

    // An admin changed a plan's price: the check names it, and setup gives the lookup key to a new price.
    await sql(`update tariffs set monthly_price_cents = 2500 where tier = 1`)
    expect(await checkStripePrices()).toEqual({
      ok: false,
      line: "Stripe's price stampwise_basic_month is not 25 USD: run npm run stripe:setup",
    })
    expect((await setUpStripePrices(stripe)).created).toEqual(['price stampwise_basic_month'])
    expect(byKey().stampwise_basic_month).toEqual({
      amount: 2500,
      interval: 'month',
      product: 'stampwise_basic',
      currency: 'usd',
    })
    expect(peer.prices().filter((price) => price.product === 'stampwise_basic')).toHaveLength(3)
    expect(await checkStripePrices()).toEqual({ ok: true })
    await sql(`update tariffs set monthly_price_cents = 1900 where tier = 1`)
    await setUpStripePrices(stripe)
    expect(peer.violations()).toEqual([])
  })

  test('a refused key stops the start with one line; Stripe out of reach is told apart', async () => {
    process.env.STRIPE_SECRET_KEY = 'sk_test_not_this_one'
    resetEnvForTests()
    try {
      expect(await checkStripePrices()).toEqual({
        ok: false,
        line: 'Stripe refused STRIPE_SECRET_KEY',
        unreachable: false,
      })
    } finally {
      process.env.STRIPE_SECRET_KEY = peer.secretKey
      resetEnvForTests()
    }
    peer.failNext(3, 500)
    expect(await checkStripePrices()).toMatchObject({ ok: false, unreachable: true })
    process.env.STRIPE_API_ORIGIN = 'http://127.0.0.1:9'
    resetEnvForTests()
    try {
      expect(await checkStripePrices()).toMatchObject({
        ok: false,
        unreachable: true,
        line: expect.stringMatching(/^Stripe could not be reached/),
      })
    } finally {
      process.env.STRIPE_API_ORIGIN = peer.origin
      resetEnvForTests()
    }
  })
})

describe('npm run stripe:setup', () => {
  const databaseEnv = (): Record<string, string> =>
    process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : { DATA_DIR: process.env.DATA_DIR! }
  const setup = (env: Record<string, string> = peer.env()) =>
    runTsToEnd('scripts/stripe-setup.ts', { env: { ...databaseEnv(), ...env } })

  test('says what it made; run again, that everything was there; without a key, one line and exit 1', async () => {
    // A Stripe account of its own: the first run makes everything.
    const fresh = await startStripePeer()
    try {
      const first = await setup(fresh.env())
      expect(first).toMatchObject({ code: 0, stderr: '' })
      expect(first.stdout.trim().split('\n')).toEqual([
        'created product stampwise_basic',
        'created price stampwise_basic_month',
        'created price stampwise_basic_year',
        'created product stampwise_standard',
        'created price stampwise_standard_month',
        'created price stampwise_standard_year',
        'created product stampwise_premium',
        'created price stampwise_premium_month',
        'created price stampwise_premium_year',
        'Stripe is set up: 9 made, 0 prices were already there.',
      ])
      const again = await setup(fresh.env())
      expect(again).toMatchObject({ code: 0, stderr: '' })
      expect(again.stdout.trim()).toBe('Stripe was already set up: all 6 prices are there.')
      expect(fresh.prices()).toHaveLength(6)
      expect(fresh.violations()).toEqual([])
    } finally {
      await fresh.close()
    }

    const withoutKey = await setup({ STRIPE_SECRET_KEY: '' })
    expect(withoutKey.code).toBe(1)
    expect(withoutKey.stderr.trim()).toBe(
      'STRIPE_SECRET_KEY is not set: paying by card is off, there is nothing to set up',
    )
    const withoutSecret = await setup({ ...peer.env(), STRIPE_WEBHOOK_SECRET: '' })
    expect(withoutSecret.code).toBe(1)
    expect(withoutSecret.stderr.trim()).toBe(
      'Invalid configuration: STRIPE_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set (the signing secret of the webhook endpoint)',
    )
    expect(peer.violations()).toEqual([])
  }, 90_000)
})
