/*
 * A plan as the pricing tables show it (models/tariff.server.ts reads them): here, so components know it without
 * importing a model (decision 054). The model checks its columns against this shape.
 */
export type PublicTariff = {
  tier: 1 | 2 | 3
  name: string
  monthlyPriceCents: number
  yearlyPriceCents: number
  cardLimit: number
  monthlyPushLimit: number
  /** Staff logins (seats) the plan allows; the trial's are TRIAL_STAFF_SEATS. */
  staffSeats: number
}

/** What every plan holds, trial included, on this deployment (app/services/billing/plan-features.server.ts). */
export type SharedPlanFeatures = { locationsMax: number; appleWallet: boolean; googleWallet: boolean }
