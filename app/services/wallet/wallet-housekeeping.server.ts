import { certificateExpiryWarning, getAppleWalletConfig } from '#app/server/apple-wallet-config.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { pruneApplePushes } from '#models/apple-push.server.ts'
import { pruneAppleRegistrations } from '#models/apple-registration.server.ts'
import { pruneGoogleWalletUpdates } from '#models/google-wallet.server.ts'

/** A deleted card's voided passes are served this long: a device that was off for a month still learns of it. */
export const VOIDED_PASS_KEEP_DAYS = 30
/** Settled pushes and Google calls that belong to no message are kept this long (for support), then deleted. */
export const APPLE_PUSH_KEEP_DAYS = 30
const DAY_MS = 24 * 3600 * 1000

let lastExpiryWarningAt = 0

/**
 * The hourly wallet housekeeping: removes what is past keeping, and once a day warns that the pass certificate ends
 * within 30 days (docs/product/wallets.md, "When on"): after that day no pass can be signed and APNs refuses the
 * certificate.
 */
export async function runWalletHousekeeping(now = new Date(), config = getAppleWalletConfig()) {
  const registrations = await pruneAppleRegistrations(VOIDED_PASS_KEEP_DAYS)
  const pushes = (await pruneApplePushes(APPLE_PUSH_KEEP_DAYS)) + (await pruneGoogleWalletUpdates(APPLE_PUSH_KEEP_DAYS))
  const warning = config ? certificateExpiryWarning(config, now) : null
  // The job runs hourly; the warning goes once a day (a minute's slack for the job's own timing).
  const due = warning !== null && now.getTime() - lastExpiryWarningAt >= DAY_MS - 60_000
  if (due) {
    lastExpiryWarningAt = now.getTime()
    logger.warn(warning)
  }
  return { registrations, pushes, warned: due ? warning : null }
}
