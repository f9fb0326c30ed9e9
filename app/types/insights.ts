/*
 * The shapes of the figures models/insights.server.ts reads, for the charts that draw them, and of the figures as the
 * pages word them (app/services/insights/insight-items.ts): here, so components and utils know them without importing
 * a model or a service (decision 054).
 */

/** Stamps and new holders on one day (YYYY-MM-DD in the business's zone). */
export type InsightDay = { day: string; stamps: number; newHolders: number }

/** Visits in one hour of one weekday (0 = Sunday) of the business's clock. */
export type VisitHour = { weekday: number; hour: number; visits: number }

export type InsightKey =
  | 'newHolders'
  | 'activeHolders'
  | 'stamps'
  | 'rewardsEarned'
  | 'rewardsRedeemed'
  | 'redemptionRate'
  | 'returningRate'
  | 'timeToReward'

/**
 * The card page's and the account home's figures as they read (docs/product/insights-and-exports.md): each
 * with its change against the range before. A rate with nothing to divide shows '—'; a count's change is a
 * percentage, a rate's a difference in points, the time to reward's a difference in days.
 */
export type InsightItem = {
  key: InsightKey
  label: string
  value: string
  /** '+12%', '−3 pts', '+1.5 days', 'no change', 'up from 0', or '—' when either side has no figure. */
  change: string
  trend: 'up' | 'down' | 'flat' | 'none'
  /** How the figure is counted, for the page's help line. */
  hint: string
}
