import { isAppleWalletOn, isGoogleWalletOn } from '#app/services/wallet/wallet-links.server.ts'
import { totalReach, type PushReach } from '#app/utils/push-channels.ts'
import { countAudienceReach } from '#models/holder-audience.server.ts'

/** What the push pages tell an owner whose card reaches nobody yet (issue 30, item 6): see NoReachNotice. */
export type NoReach = {
  /** The card's holders, none of them reachable. */
  holders: number
  /** Wallets holders can add the card to here: each one a way to reach them. */
  appleWallet: boolean
  googleWallet: boolean
}

export type CardReach = { reach: PushReach; noReach: NoReach | null }

/**
 * What a message to all the card's holders would reach now (devices per channel, as the Send counts them:
 * countAudienceReach), and the notice when that is nobody: one count, so the two never disagree.
 */
export async function cardReach({ cardId, ownerId }: { cardId: string; ownerId: string }): Promise<CardReach> {
  const { holders, reach } = await countAudienceReach({ cardId, ownerId, audience: 'all' })
  const noReach =
    totalReach(reach) > 0 ? null : { holders, appleWallet: isAppleWalletOn(), googleWallet: isGoogleWalletOn() }
  return { reach, noReach }
}

/** Null when a message to all the card's holders would reach a device now; else what the notice needs. */
export const noReachOf = async (card: { cardId: string; ownerId: string }) => (await cardReach(card)).noReach
