import { getAppleWalletConfig, type AppleWalletConfig } from '#app/server/apple-wallet-config.server.ts'
import { getEnv } from '#app/server/env.server.ts'
import {
  getApplePassModifiedAt,
  getApplePassRow,
  getVoidedApplePass,
  type ApplePassRow,
} from '#models/apple-pass.server.ts'
import { cachedApplePass } from './apple-pass-cache.server.ts'
import { applePassToken } from './apple-pass-token.server.ts'
import { buildApplePass, type ApplePassContent } from './apple-pass.server.ts'

/**
 * The Apple Wallet pass of a holder, as the pass page's link and Apple's web service hand it out
 * (docs/product/wallets.md, "Apple pass"). Built once per (pass, modification time) and kept in the 50 MB memory cache:
 * the time moves with every stamp, design change or message (migration 0010), so a kept pass is never stale, and
 * opening it again does not sign again.
 */

export const APPLE_PASS_CONTENT_TYPE = 'application/vnd.apple.pkpass'

function contentOf(row: ApplePassRow, voided: boolean): ApplePassContent {
  return {
    passId: row.passId,
    shortCode: row.shortCode,
    stamps: row.stamps,
    stampsRequired: row.stampsRequired,
    card: {
      id: row.cardId,
      version: row.cardVersion,
      title: row.title,
      businessName: row.businessName,
      backgroundColor: row.backgroundColor,
      textColor: row.textColor,
      stampIcon: row.stampIcon,
      reward: row.reward,
      terms: row.terms,
      stampPushOn: row.stampPushOn,
      logo: row.logo ? { data: row.logo, contentType: row.logoContentType ?? 'image/png' } : null,
    },
    latestMessage: row.latestMessage,
    // A voided pass is no longer worth showing near the shop.
    locations: voided ? [] : row.locations,
    voided,
  }
}

async function build(row: ApplePassRow, config: AppleWalletConfig, voided: boolean) {
  return buildApplePass(contentOf(row, voided), config, {
    appUrl: getEnv().APP_URL,
    authenticationToken: await applePassToken(row.passId),
  })
}

/**
 * The pass as it is now, with its modification time; a voided one (its card is being or was deleted) as it was
 * voided. Null when Apple Wallet is off or there is no such pass.
 */
export async function getLatestApplePass(passId: string): Promise<{ pkpass: Buffer; modifiedAt: Date } | null> {
  const config = getAppleWalletConfig()
  if (!config) return null
  // One light query on the way to a kept pass: its time names the build; the card and its logo load only to build.
  const current = await getApplePassModifiedAt(passId)
  if (!current) return null
  if (current.voided) return getVoidedApplePass(passId)
  const pkpass = await cachedApplePass(`${passId}:${current.modifiedAt.getTime()}`, async () => {
    const row = await getApplePassRow(passId)
    if (!row) throw new PassGone()
    return build(row, config, false)
  }).catch((error: unknown) => {
    if (error instanceof PassGone) return null
    throw error
  })
  return pkpass ? { pkpass, modifiedAt: current.modifiedAt } : null
}

/** The pass was deleted between reading its time and building it: the same answer as no pass. */
class PassGone extends Error {}

/** The pass as voided (its card is about to go), for the devices that hold it; null without Apple Wallet or pass. */
export async function buildVoidedApplePass(passId: string): Promise<Buffer | null> {
  const config = getAppleWalletConfig()
  const row = config ? await getApplePassRow(passId) : null
  return config && row ? build(row, config, true) : null
}
