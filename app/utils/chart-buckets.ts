import { type InsightDay } from '#app/types/insights.ts'

/** A bar of the activity chart: one day, or one week (the days from `first` to `last`, both included). */
export type ChartBucket = { first: string; last: string; stamps: number; newHolders: number }

/** Up to this many days a bar is a day; beyond (a year) a bar is a week, so a phone shows 53 bars, not 365 hairs. */
export const MOST_DAY_BARS = 92

export const chartUnit = (dayCount: number): 'day' | 'week' => (dayCount > MOST_DAY_BARS ? 'week' : 'day')

/**
 * The days as the chart's bars. Weeks are counted back from the last day, so the last bar ends today and is a
 * whole week; the first may be shorter (365 days are 52 weeks and a day), and says so by its dates.
 */
export function chartBuckets(days: InsightDay[]): ChartBucket[] {
  if (chartUnit(days.length) === 'day')
    return days.map((day) => ({ first: day.day, last: day.day, stamps: day.stamps, newHolders: day.newHolders }))
  const buckets: ChartBucket[] = []
  for (let end = days.length; end > 0; end -= 7) {
    const week = days.slice(Math.max(0, end - 7), end)
    buckets.unshift({
      first: week[0]!.day,
      last: week[week.length - 1]!.day,
      stamps: week.reduce((sum, day) => sum + day.stamps, 0),
      newHolders: week.reduce((sum, day) => sum + day.newHolders, 0),
    })
  }
  return buckets
}
