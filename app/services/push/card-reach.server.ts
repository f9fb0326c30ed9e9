import { isAppleWalletOn, isGoogleWalletOn } from '#app/services/wallet/wallet-links.server.ts'
import { totalReach } from '#app/utils/push-channels.ts'
import { countAudienceReach } from '#models/holder-audience.server.ts'

/** What the push pages tell an owner whose card reaches nobody yet (issue 30, item 6): see NoReachNotice. */
export type NoReach = {
  /** The card's holders, none of them reachable. */
  holders: number
  /** Wallets holders can add the card to here: each one a way to reach them. */
  appleWallet: boolean
  googleWallet: boolean
}

/**
 * Null when a message to all the card's holders would reach a device now; else what the notice needs. Counted as
 * the Send counts (countAudienceReach), so the notice and the Send's refusal never disagree.
 */
export async function noReachOf({ cardId, ownerId }: { cardId: string; ownerId: string }): Promise<NoReach | null> {
  const { holders, reach } = await countAudienceReach({ cardId, ownerId, audience: 'all' })
  if (totalReach(reach) > 0) return null
  return { holders, appleWallet: isAppleWalletOn(), googleWallet: isGoogleWalletOn() }
}
