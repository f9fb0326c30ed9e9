import { describe, expect, test } from 'vitest'
import { type InsightFigures } from '#models/insights.server.ts'
import { daysText, insightItems, rate } from './insight-items.ts'

const figures = (overrides: Partial<InsightFigures> = {}): InsightFigures => ({
  newHolders: 0,
  activeHolders: 0,
  stamps: 0,
  rewardsEarned: 0,
  rewardsRedeemed: 0,
  stampedHolders: 0,
  returningHolders: 0,
  medianSecondsToReward: null,
  ...overrides,
})
const byKey = (now: InsightFigures, before: InsightFigures) =>
  Object.fromEntries(insightItems(now, before).map((item) => [item.key, item]))

describe('insight items', () => {
  test('counts change in percent, from zero as “up from 0”, equal as “no change”', () => {
    const items = byKey(
      figures({ stamps: 150, newHolders: 3, activeHolders: 9 }),
      figures({ stamps: 120, activeHolders: 12 }),
    )
    expect(items.stamps).toMatchObject({ value: '150', change: '+25%', trend: 'up' })
    expect(items.newHolders).toMatchObject({ value: '3', change: 'up from 0', trend: 'up' })
    expect(items.activeHolders).toMatchObject({ value: '9', change: '\u221225%', trend: 'down' })
    expect(items.rewardsEarned).toMatchObject({ value: '0', change: 'no change', trend: 'flat' })
  })

  test('a rate with nothing to divide shows —, and its change in points', () => {
    const items = byKey(
      figures({ rewardsEarned: 4, rewardsRedeemed: 3, stampedHolders: 10, returningHolders: 4 }),
      figures({ rewardsEarned: 2, rewardsRedeemed: 1, stampedHolders: 0 }),
    )
    expect(items.redemptionRate).toMatchObject({ value: '75%', change: '+25 pts', trend: 'up' })
    expect(items.returningRate).toMatchObject({ value: '40%', change: '—', trend: 'none' })
    expect(byKey(figures(), figures()).redemptionRate).toMatchObject({ value: '—', change: '—' })
  })

  test('time to reward in days with one decimal, its change in days', () => {
    const items = byKey(
      figures({ medianSecondsToReward: 2.5 * 86_400 }),
      figures({ medianSecondsToReward: 3.5 * 86_400 }),
    )
    expect(items.timeToReward).toMatchObject({ value: '2.5 days', change: '\u22121 day', trend: 'down' })
    expect(byKey(figures({ medianSecondsToReward: 3600 }), figures()).timeToReward).toMatchObject({
      value: '1 hour',
      change: '—',
    })
    expect(daysText(86_400)).toBe('1 day')
    expect(daysText(600)).toBe('under an hour')
    expect(daysText(5 * 3600 + 100)).toBe('5 hours')
    expect(rate(1, 3)).toBe(33)
    expect(rate(1, 0)).toBeNull()
  })
})
