import { isAppleWalletOn, isGoogleWalletOn } from '#app/services/wallet/wallet-links.server.ts'
import { type SharedPlanFeatures } from '#app/types/tariffs.ts'
import { LOCATIONS_MAX } from '#app/utils/location-schemas.ts'

/**
 * What every plan holds, trial included (DECISIONS.md: locations have one limit for all, wallets work on every plan
 * once they are set up): read from this deployment's settings, so the pricing never offers a wallet it cannot issue.
 */
export function sharedPlanFeatures(): SharedPlanFeatures {
  return { locationsMax: LOCATIONS_MAX, appleWallet: isAppleWalletOn(), googleWallet: isGoogleWalletOn() }
}
