/*
 * The shapes of the figures models/insights.server.ts reads, for the charts that draw them: here, so components and
 * utils know them without importing a model (decision 054).
 */

/** Stamps and new holders on one day (YYYY-MM-DD in the business's zone). */
export type InsightDay = { day: string; stamps: number; newHolders: number }

/** Visits in one hour of one weekday (0 = Sunday) of the business's clock. */
export type VisitHour = { weekday: number; hour: number; visits: number }
