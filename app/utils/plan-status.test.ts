import { describe, expect, test } from 'vitest'
import { addMonths, dueTransitions, monthStart, planBox, planState, type StoredSubscription } from './plan-status.ts'

const DAY = 24 * 60 * 60 * 1000
const now = new Date('2026-11-26T12:00:00Z')
const days = (n: number) => new Date(now.getTime() + n * DAY)
const standard = { tier: 2, name: 'Standard', cardLimit: 3, monthlyPushLimit: 12 }

function sub(overrides: Partial<StoredSubscription>): StoredSubscription {
  return {
    status: 'trial',
    trialEndsAt: days(14),
    periodStartsAt: null,
    periodEndsAt: null,
    accessEndsAt: null,
    periodMonths: null,
    additionalQuota: 0,
    tariff: null,
    ...overrides,
  }
}

describe('plan box texts (docs/product/plans-and-limits.md, "Plan box")', () => {
  test('a running trial counts whole days left', () => {
    const state = planState(sub({ trialEndsAt: new Date(now.getTime() + 13.2 * DAY) }), now)
    expect(state).toMatchObject({ trialDays: 14, subActiveFlag: 1, inTrial: true, cardLimit: 3, monthlyPushLimit: 10 })
    expect(planBox(state)).toEqual({
      title: '14 days free trial left',
      subtitle: 'Choose a plan for your business needs',
    })
  })

  test('a plan chosen inside the trial still shows the trial', () => {
    const state = planState(
      sub({
        status: 'waiting_payment',
        accessEndsAt: days(5),
        trialEndsAt: days(5),
        tariff: standard,
        periodMonths: 1,
      }),
      now,
    )
    expect(state).toMatchObject({ trialDays: 5, subActiveFlag: 1, inTrial: true, cardLimit: 3, monthlyPushLimit: 10 })
    expect(planBox(state).title).toBe('5 days free trial left')
  })

  test('a trial that ran out is over, and the gate closes', () => {
    const state = planState(sub({ trialEndsAt: days(-1) }), now)
    expect(state).toMatchObject({ status: 'ended', trialDays: 0, subActiveFlag: 0, canUsePush: false, cardLimit: 0 })
    expect(planBox(state)).toEqual({ title: 'Trial over', subtitle: 'Upgrade your plan' })
  })

  test('additional quota keeps the push pages open after the end', () => {
    expect(planState(sub({ status: 'ended', trialEndsAt: days(-20), additionalQuota: 2 }), now).canUsePush).toBe(true)
  })

  test('active plans renew monthly or yearly', () => {
    const active = {
      status: 'active' as const,
      trialEndsAt: days(-30),
      periodStartsAt: days(-10),
      periodEndsAt: days(20),
      tariff: standard,
    }
    const monthly = planState(sub({ ...active, periodMonths: 1 }), now)
    expect(monthly).toMatchObject({ subActiveFlag: 1, inTrial: false, cardLimit: 3, monthlyPushLimit: 12 })
    expect(planBox(monthly)).toEqual({ title: 'Standard Plan', subtitle: 'Renews monthly' })
    expect(planBox(planState(sub({ ...active, periodMonths: 12 }), now)).subtitle).toBe('Renews yearly')
  })

  test('a cancelled plan runs to its end date', () => {
    const state = planState(
      sub({
        status: 'cancelled',
        trialEndsAt: days(-30),
        periodStartsAt: days(-10),
        periodEndsAt: new Date('2026-12-20T09:00:00Z'),
        periodMonths: 1,
        tariff: standard,
      }),
      now,
    )
    expect(state.subActiveFlag).toBe(1)
    expect(planBox(state)).toEqual({ title: 'Standard Plan', subtitle: 'Ends on 20 December 2026' })
  })

  test('an ended paid plan and an unpaid renewal are limited', () => {
    const ended = planState(
      sub({
        status: 'ended',
        trialEndsAt: days(-60),
        periodStartsAt: days(-40),
        periodEndsAt: days(-10),
        periodMonths: 1,
        tariff: standard,
      }),
      now,
    )
    expect(ended.subActiveFlag).toBe(0)
    expect(planBox(ended)).toEqual({ title: 'Standard Plan', subtitle: 'Access to Stampwise is limited' })
    const grace = planState(
      sub({
        status: 'waiting_payment',
        trialEndsAt: days(-60),
        periodStartsAt: days(-32),
        periodEndsAt: days(-2),
        accessEndsAt: days(5),
        periodMonths: 1,
        tariff: standard,
      }),
      now,
    )
    expect(grace).toMatchObject({ subActiveFlag: 1, inTrial: false, cardLimit: 3 })
    expect(planBox(grace).subtitle).toBe('Access to Stampwise is limited')
  })
})

describe('transitions made due by time', () => {
  test('an active period that ran out issues a renewal and, past the grace days, ends', () => {
    const active = sub({
      status: 'active',
      trialEndsAt: days(-90),
      periodStartsAt: days(-40),
      periodEndsAt: days(-10),
      periodMonths: 1,
      tariff: standard,
    })
    const { transitions, subscription } = dueTransitions(active, now)
    expect(transitions.map((t) => [t.to, t.at.toISOString()])).toEqual([
      ['waiting_payment', days(-10).toISOString()],
      ['ended', days(-3).toISOString()],
    ])
    expect(transitions[0]!.issuesRenewalInvoice).toBe(true)
    expect(subscription.status).toBe('ended')
  })

  test('a card plan (Stripe renews it) waits a day past its period for the renewal, issues no invoice, then ends', () => {
    const card = (periodEndsAt: Date) =>
      sub({
        status: 'active',
        provider: 'stripe',
        trialEndsAt: days(-90),
        periodStartsAt: days(-40),
        periodEndsAt,
        periodMonths: 1,
        tariff: standard,
      })
    expect(dueTransitions(card(new Date(now.getTime() - DAY + 1000)), now).transitions).toEqual([])
    const { transitions, subscription } = dueTransitions(card(days(-2)), now)
    expect(transitions.map((t) => [t.to, t.at.toISOString(), t.cause])).toEqual([
      ['waiting_payment', days(-1).toISOString(), 'period ended: no renewal from Stripe'],
    ])
    expect(transitions[0]!.issuesRenewalInvoice).toBeUndefined()
    expect(subscription.accessEndsAt).toEqual(days(5))
    expect(dueTransitions(card(days(-10)), now).subscription.status).toBe('ended')
  })

  test('inside the grace days the renewal waits with access', () => {
    const active = sub({
      status: 'active',
      trialEndsAt: days(-90),
      periodStartsAt: days(-32),
      periodEndsAt: days(-2),
      periodMonths: 1,
      tariff: standard,
    })
    expect(dueTransitions(active, now).transitions.map((t) => t.to)).toEqual(['waiting_payment'])
  })

  test('nothing is due for a running state, and a plan chosen after the end waits without a deadline', () => {
    expect(dueTransitions(sub({}), now).transitions).toEqual([])
    expect(
      dueTransitions(sub({ status: 'waiting_payment', trialEndsAt: days(-30), accessEndsAt: null }), now).transitions,
    ).toEqual([])
    expect(dueTransitions(sub({ status: 'cancelled', periodEndsAt: days(1) }), now).transitions).toEqual([])
    expect(
      dueTransitions(sub({ status: 'cancelled', periodEndsAt: days(-1) }), now).transitions.map((t) => t.to),
    ).toEqual(['ended'])
  })
})

test('months are calendar months, UTC', () => {
  expect(monthStart(new Date('2026-11-30T23:59:59Z')).toISOString()).toBe('2026-11-01T00:00:00.000Z')
  expect(addMonths(new Date('2026-01-31T10:00:00Z'), 1).toISOString()).toBe('2026-02-28T10:00:00.000Z')
  expect(addMonths(new Date('2026-03-15T10:00:00Z'), 12).toISOString()).toBe('2027-03-15T10:00:00.000Z')
})
