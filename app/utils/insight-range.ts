import { addDays, type LocalDay } from './local-time.ts'

/**
 * The ranges of the card page's insights (docs/product/insights-and-exports.md): each ends with today in
 * the business's time zone and is compared with the range of the same length just before it.
 */
export const INSIGHT_RANGES = {
  '7d': { label: '7 days', days: 7 },
  '30d': { label: '30 days', days: 30 },
  '90d': { label: '90 days', days: 90 },
  '12m': { label: '12 months', days: null },
} as const
export type InsightRangeKey = keyof typeof INSIGHT_RANGES
export const DEFAULT_INSIGHT_RANGE: InsightRangeKey = '30d'

export const isInsightRangeKey = (value: string): value is InsightRangeKey => Object.hasOwn(INSIGHT_RANGES, value)

/** Calendar days [from, to): `to` is the day after the last one shown. */
export type DayRange = { from: LocalDay; to: LocalDay }

/** The same calendar date `months` months earlier, clamped to the month's end (29 Feb → 28 Feb). */
function monthsBefore(day: LocalDay, months: number): LocalDay {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number]
  const index = year * 12 + (month - 1) - months
  const targetYear = Math.floor(index / 12)
  const targetMonth = (index % 12) + 1
  const lastDay = new Date(Date.UTC(targetYear, targetMonth, 0)).getUTCDate()
  return `${String(targetYear).padStart(4, '0')}-${String(targetMonth).padStart(2, '0')}-${String(Math.min(date, lastDay)).padStart(2, '0')}`
}

/** The range ending today (inclusive) and the range of as many days just before it. */
export function insightRanges(key: InsightRangeKey, today: LocalDay): { current: DayRange; previous: DayRange } {
  const to = addDays(today, 1)
  const { days } = INSIGHT_RANGES[key]
  const from = days === null ? monthsBefore(to, 12) : addDays(to, -days)
  const length = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000)
  return { current: { from, to }, previous: { from: addDays(from, -length), to: from } }
}
