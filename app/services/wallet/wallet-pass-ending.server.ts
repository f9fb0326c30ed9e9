import { enqueueWalletUpdates } from '#app/server/job-queue.server.ts'
import { listRegisteredPassIdsOfOwner, storeVoidedApplePass } from '#models/apple-pass.server.ts'
import { queueGoogleWalletObjectsEnd } from '#models/google-wallet.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import { buildVoidedApplePass } from './apple-pass-download.server.ts'

/**
 * Ending a card (docs/product/wallets.md, "Ending a card"): before a card or an account is deleted, its passes in Apple
 * Wallet are voided — a voided pass is kept to serve and every device holding it is pushed — and its passes saved in
 * Google Wallet are set INACTIVE (calls queued with rows that outlive the passes), so holders see the card end instead
 * of a card that silently stops updating. Only passes some device registered are built (the others are in no Wallet).
 * Then `remove` deletes the rows, and the pushes and calls go.
 */
export async function voidWalletPassesThen<T>(
  { userId, cardId }: { userId: string; cardId?: string },
  remove: () => Promise<T>,
): Promise<T> {
  const passIds = await listRegisteredPassIdsOfOwner({ userId, cardId })
  const voided: { passId: string; pkpass: Buffer }[] = []
  for (const passId of passIds) {
    const pkpass = await buildVoidedApplePass(passId)
    if (pkpass) voided.push({ passId, pkpass })
  }
  const queued = await withTransaction(async (transaction) => {
    for (const { passId, pkpass } of voided) await storeVoidedApplePass(passId, pkpass, transaction)
    return voided.length + (await queueGoogleWalletObjectsEnd({ userId, cardId }, transaction))
  })
  const result = await remove()
  if (queued) await enqueueWalletUpdates()
  return result
}
