/*
 * A pass as the scan page shows it after a lookup or a stamp (app/services/cards/stamping.server.ts makes it): here,
 * so the scan components know it without importing a service (decision 054).
 */
export type PassStampState = {
  passId: string
  shortCode: string
  stamps: number
  stampsRequired: number
  rewardsRedeemed: number
  rewardEarned: boolean
  /** Until when the last stamp can be undone (null: nothing to undo). */
  undoUntil: Date | null
}
