import { describe, expect, test } from 'vitest'
import { chartBuckets, chartUnit } from './chart-buckets.ts'

const daysFrom = (start: string, count: number) =>
  Array.from({ length: count }, (_, index) => {
    const day = new Date(`${start}T00:00:00Z`)
    day.setUTCDate(day.getUTCDate() + index)
    return { day: day.toISOString().slice(0, 10), stamps: index, newHolders: 1 }
  })

describe('the activity chart’s bars', () => {
  test('up to 92 days a bar is a day', () => {
    const days = daysFrom('2026-09-01', 90)
    expect(chartUnit(90)).toBe('day')
    const buckets = chartBuckets(days)
    expect(buckets).toHaveLength(90)
    expect(buckets[5]).toEqual({ first: '2026-09-06', last: '2026-09-06', stamps: 5, newHolders: 1 })
  })

  test('a year is 53 weekly bars, the last a whole week ending on the last day, the first the day left over', () => {
    const days = daysFrom('2025-12-07', 365)
    expect(chartUnit(365)).toBe('week')
    const buckets = chartBuckets(days)
    expect(buckets).toHaveLength(53)
    expect(buckets[0]).toEqual({ first: '2025-12-07', last: '2025-12-07', stamps: 0, newHolders: 1 })
    const lastWeek = buckets.at(-1)!
    expect(lastWeek).toMatchObject({ first: '2026-11-30', last: '2026-12-06', newHolders: 7 })
    // 358 + … + 364: every day counted once, in one week.
    expect(lastWeek.stamps).toBe(358 + 359 + 360 + 361 + 362 + 363 + 364)
    expect(buckets.reduce((sum, bucket) => sum + bucket.stamps, 0)).toBe((364 * 365) / 2)
  })
})
