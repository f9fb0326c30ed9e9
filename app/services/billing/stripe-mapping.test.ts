import { describe, expect, test } from 'vitest'
import { planOfLookupKey, stripePlanTarget, type StripeSubscriptionState } from './stripe-mapping.ts'

const now = new Date('2026-12-07T12:00:00Z')
const day = (n: number) => new Date(now.getTime() + n * 24 * 60 * 60 * 1000)
const state = (overrides: Partial<StripeSubscriptionState> = {}): StripeSubscriptionState => ({
  id: 'sub_1',
  customerId: 'cus_1',
  status: 'active',
  cancelAtPeriodEnd: false,
  canceledAt: null,
  lookupKey: 'stampwise_standard_year',
  periodStartsAt: day(-1),
  periodEndsAt: day(364),
  ...overrides,
})

describe('the plan a Stripe subscription means', () => {
  test('the plans’ lookup keys, and nothing else', () => {
    expect(planOfLookupKey('stampwise_basic_month')).toEqual({ tier: 1, periodMonths: 1 })
    expect(planOfLookupKey('stampwise_premium_year')).toEqual({ tier: 3, periodMonths: 12 })
    expect(planOfLookupKey('stampwise_gold_month')).toBeNull()
    expect(planOfLookupKey(null)).toBeNull()
  })

  test('active and trialing: active until the period’s end; set to cancel at its end: cancelled until then', () => {
    const active = { status: 'active', tier: 2, periodMonths: 12, periodStartsAt: day(-1), periodEndsAt: day(364) }
    expect(stripePlanTarget(state(), { now })).toEqual({ ...active, accessEndsAt: null, cancelledAt: null })
    expect(stripePlanTarget(state({ status: 'trialing' }), { now })).toMatchObject({ status: 'active' })
    expect(stripePlanTarget(state({ cancelAtPeriodEnd: true, canceledAt: day(-1) }), { now })).toMatchObject({
      status: 'cancelled',
      cancelledAt: day(-1),
      periodEndsAt: day(364),
    })
  })

  test('past_due and unpaid wait for payment, 7 days from the failed invoice, or the grace already running', () => {
    expect(stripePlanTarget(state({ status: 'past_due' }), { now, failedAt: day(-2) })).toMatchObject({
      status: 'waiting_payment',
      accessEndsAt: day(5),
    })
    expect(stripePlanTarget(state({ status: 'unpaid' }), { now, accessEndsAt: day(3) })).toMatchObject({
      accessEndsAt: day(3),
    })
    expect(stripePlanTarget(state({ status: 'past_due' }), { now })).toMatchObject({ accessEndsAt: day(7) })
  })

  test('canceled has ended; an unfinished first payment or a foreign price changes nothing', () => {
    expect(stripePlanTarget(state({ status: 'canceled', canceledAt: day(0) }), { now })).toMatchObject({
      status: 'ended',
    })
    expect(stripePlanTarget(state({ status: 'incomplete' }), { now })).toEqual({
      ignored: 'the subscription is incomplete',
    })
    expect(stripePlanTarget(state({ lookupKey: 'other' }), { now })).toEqual({
      ignored: 'not a price of the plans (other)',
    })
  })
})
