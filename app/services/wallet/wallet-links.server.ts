import { getAppleWalletConfig } from '#app/server/apple-wallet-config.server.ts'
import { getGoogleWalletConfig } from '#app/server/google-wallet-config.server.ts'
import { countCardAppleWallet } from '#models/apple-registration.server.ts'
import { countCardGoogleWallet } from '#models/google-wallet.server.ts'

export type WalletLinks = { appleWallet: string | null; googleWallet: string | null }

/** The wallets a holder may add their card to: only those configured (docs/product/wallets.md, "Holder side"). */
export function walletLinks(passId: string): WalletLinks {
  return {
    appleWallet: getAppleWalletConfig() ? `/p/${passId}/wallet.pkpass` : null,
    googleWallet: getGoogleWalletConfig() ? `/p/${passId}/google-wallet` : null,
  }
}

/** Whether holders of any card can add it to Apple Wallet now (the owner's card page says so). */
export const isAppleWalletOn = () => getAppleWalletConfig() !== null
/** Whether holders of any card can save it to Google Wallet now. */
export const isGoogleWalletOn = () => getGoogleWalletConfig() !== null

/** What the owner's card page says of wallets: whether holders can add the card, and how many have. */
export async function cardWalletStatus(owned: { cardId: string; userId: string }) {
  const [apple, google] = await Promise.all([countCardAppleWallet(owned), countCardGoogleWallet(owned)])
  return {
    appleWallet: { on: isAppleWalletOn(), holders: apple.passes },
    googleWallet: { on: isGoogleWalletOn(), holders: google },
  }
}
