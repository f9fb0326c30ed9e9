import { type InsightItem, type InsightKey } from '#app/types/insights.ts'
import { type InsightFigures } from '#models/insights.server.ts'

const MINUS = '\u2212'
const DAY_SECONDS = 86_400

const signed = (value: number, unit: string) => `${value > 0 ? '+' : value < 0 ? MINUS : ''}${Math.abs(value)}${unit}`
const trendOf = (delta: number): InsightItem['trend'] => (delta > 0 ? 'up' : delta < 0 ? 'down' : 'flat')

function countItem(key: InsightKey, label: string, hint: string, now: number, before: number): InsightItem {
  if (now === before) return { key, label, hint, value: String(now), change: 'no change', trend: 'flat' }
  if (before === 0) return { key, label, hint, value: String(now), change: 'up from 0', trend: 'up' }
  const percent = Math.round(((now - before) / before) * 100)
  return { key, label, hint, value: String(now), change: signed(percent, '%'), trend: trendOf(now - before) }
}

/** A share in whole percent, or null when there is nothing to divide by. */
export const rate = (part: number, whole: number): number | null =>
  whole > 0 ? Math.round((part / whole) * 100) : null

function rateItem(key: InsightKey, label: string, hint: string, now: number | null, before: number | null) {
  const value = now === null ? '—' : `${now}%`
  if (now === null || before === null) return { key, label, hint, value, change: '—', trend: 'none' as const }
  if (now === before) return { key, label, hint, value, change: 'no change', trend: 'flat' as const }
  return { key, label, hint, value, change: signed(now - before, ' pts'), trend: trendOf(now - before) }
}

/** '12.5 days', '1 day'; under a day in hours ('5 hours'), under an hour 'under an hour'. */
export function daysText(seconds: number): string {
  if (seconds < 3600) return 'under an hour'
  if (seconds < DAY_SECONDS) {
    const hours = Math.round(seconds / 3600)
    return hours === 24 ? '1 day' : `${hours} ${hours === 1 ? 'hour' : 'hours'}`
  }
  const days = Math.round((seconds / DAY_SECONDS) * 10) / 10
  return `${days} ${days === 1 ? 'day' : 'days'}`
}

function timeItem(now: number | null, before: number | null): InsightItem {
  const base = {
    key: 'timeToReward' as const,
    label: 'Time to reward',
    hint: 'Median time from a round’s first stamp to the stamp that earned its reward.',
  }
  const value = now === null ? '—' : daysText(now)
  if (now === null || before === null) return { ...base, value, change: '—', trend: 'none' }
  const delta = Math.round(((now - before) / DAY_SECONDS) * 10) / 10
  if (delta === 0) return { ...base, value, change: 'no change', trend: 'flat' }
  // Faster is better, but the arrow says which way the number went; the words say what it means.
  return { ...base, value, change: signed(delta, Math.abs(delta) === 1 ? ' day' : ' days'), trend: trendOf(delta) }
}

/** The eight figures of a range, against the range before. */
export function insightItems(now: InsightFigures, before: InsightFigures): InsightItem[] {
  return [
    countItem('newHolders', 'New holders', 'Cards added in the range.', now.newHolders, before.newHolders),
    countItem(
      'activeHolders',
      'Active holders',
      'Holders with a visit (a stamp or a redemption) in the range.',
      now.activeHolders,
      before.activeHolders,
    ),
    countItem('stamps', 'Stamps', 'Stamps given, less those undone.', now.stamps, before.stamps),
    countItem(
      'rewardsEarned',
      'Rewards earned',
      'Cards that reached their stamps in the range.',
      now.rewardsEarned,
      before.rewardsEarned,
    ),
    countItem(
      'rewardsRedeemed',
      'Rewards redeemed',
      'Rewards handed over.',
      now.rewardsRedeemed,
      before.rewardsRedeemed,
    ),
    rateItem(
      'redemptionRate',
      'Redemption rate',
      'Rewards redeemed for every reward earned.',
      rate(now.rewardsRedeemed, now.rewardsEarned),
      rate(before.rewardsRedeemed, before.rewardsEarned),
    ),
    rateItem(
      'returningRate',
      'Returning rate',
      'Of the holders stamped in the range, those stamped on two or more different days.',
      rate(now.returningHolders, now.stampedHolders),
      rate(before.returningHolders, before.stampedHolders),
    ),
    timeItem(now.medianSecondsToReward, before.medianSecondsToReward),
  ]
}
