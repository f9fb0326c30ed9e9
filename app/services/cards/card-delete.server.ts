import { voidWalletPassesThen } from '#app/services/wallet/wallet-pass-ending.server.ts'
import { deleteOwnedCard } from '#models/card.server.ts'

/**
 * Deletes one of the owner's cards with its passes, stamps and messages; its passes in Apple Wallet are voided first
 * (docs/product/wallets.md, "Ending a card"). False when it is not theirs.
 */
export function deleteCard({ cardId, userId }: { cardId: string; userId: string }): Promise<boolean> {
  return voidWalletPassesThen({ userId, cardId }, () => deleteOwnedCard({ cardId, userId }))
}
