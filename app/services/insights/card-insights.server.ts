import { DEFAULT_INSIGHT_RANGE, INSIGHT_RANGES, insightRanges, type InsightRangeKey } from '#app/utils/insight-range.ts'
import { addDays, localDay } from '#app/utils/local-time.ts'
import {
  filteredInsightFigures,
  filteredStampDays,
  insightDays,
  insightFigures,
  visitsByHour,
  type FilteredFigures,
  type InsightFigures,
  type InsightScope,
  type Who,
} from '#models/insights.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'
import { insightItems } from './insight-items.ts'

/**
 * What the card page shows of a range (docs/product/insights-and-exports.md): the eight figures against the
 * range before, stamps and new holders per day, visits by weekday and hour — all in the owner's time zone, ending
 * today there. `now` is the clock (tests fix it).
 */
export async function cardInsights(
  scope: Required<InsightScope>,
  rangeKey: InsightRangeKey = DEFAULT_INSIGHT_RANGE,
  now = new Date(),
  filter: Who = {},
) {
  const timeZone = await getOwnerTimeZone(scope.userId)
  const { current, previous } = insightRanges(rangeKey, localDay(now, timeZone))
  const range = {
    key: rangeKey,
    label: INSIGHT_RANGES[rangeKey].label,
    first: current.from,
    last: addDays(current.to, -1),
  }
  if (filter.person || filter.location) {
    const [[figuresNow, figuresBefore], stampDays, hours] = await Promise.all([
      filteredInsightFigures(scope, { timeZone, ranges: [current, previous], filter }),
      filteredStampDays(scope, { timeZone, range: current, filter }),
      visitsByHour(scope, { timeZone, range: current, filter }),
    ])
    return {
      timeZone,
      range,
      filtered: true,
      items: insightItems(asFigures(figuresNow!), asFigures(figuresBefore!)).filter((item) =>
        FILTERED_KEYS.has(item.key),
      ),
      days: stampDays.map((day) => ({ ...day, newHolders: 0 })),
      hours,
    }
  }
  const [[figuresNow, figuresBefore], days, hours] = await Promise.all([
    insightFigures(scope, { timeZone, ranges: [current, previous] }),
    insightDays(scope, { timeZone, range: current }),
    visitsByHour(scope, { timeZone, range: current }),
  ])
  return { timeZone, range, filtered: false, items: insightItems(figuresNow!, figuresBefore!), days, hours }
}

/**
 * The figures an event makes, so the only ones a filter by who and where can answer honestly: visits (active
 * holders), stamps, redemptions and the returning rate (stamped on two or more days by them, there). The others are
 * about holders and rounds, not about a person or a place, and are left out, not shown unfiltered beside them.
 */
export const FILTERED_KEYS = new Set(['activeHolders', 'stamps', 'rewardsRedeemed', 'returningRate'])

const asFigures = (figures: FilteredFigures): InsightFigures => ({
  ...figures,
  newHolders: 0,
  rewardsEarned: 0,
  medianSecondsToReward: null,
})

/**
 * The account home's headline: the last 30 days across all the owner's cards, against the 30 before. `timeZone`: the
 * owner's, which the page has read already.
 */
export async function accountInsights(userId: string, timeZone: string, now = new Date()) {
  const { current, previous } = insightRanges(DEFAULT_INSIGHT_RANGE, localDay(now, timeZone))
  const [figuresNow, figuresBefore] = await insightFigures({ userId }, { timeZone, ranges: [current, previous] })
  const headline = new Set(['newHolders', 'activeHolders', 'stamps', 'rewardsRedeemed'])
  return {
    label: INSIGHT_RANGES[DEFAULT_INSIGHT_RANGE].label,
    items: insightItems(figuresNow!, figuresBefore!).filter((item) => headline.has(item.key)),
  }
}
