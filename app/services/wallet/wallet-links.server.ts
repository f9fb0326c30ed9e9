import { getAppleWalletConfig } from '#app/server/apple-wallet-config.server.ts'
import { countCardAppleWallet } from '#models/apple-registration.server.ts'

/** The wallets a holder may add their card to: only those configured (DECISIONS.md, "Holder side"). */
export function walletLinks(passId: string): { appleWallet: string | null } {
  return { appleWallet: getAppleWalletConfig() ? `/p/${passId}/wallet.pkpass` : null }
}

/** Whether holders of any card can add it to Apple Wallet now (the owner's card page says so). */
export const isAppleWalletOn = () => getAppleWalletConfig() !== null

/** What the owner's card page says of wallets: whether holders can add the card, and how many have. */
export async function cardWalletStatus(owned: { cardId: string; userId: string }) {
  return { appleWallet: { on: isAppleWalletOn(), holders: (await countCardAppleWallet(owned)).passes } }
}
