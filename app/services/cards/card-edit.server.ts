import { enqueueWalletUpdates } from '#app/server/job-queue.server.ts'
import { writeAudit } from '#app/services/admin/audit.server.ts'
import { CARD_CONTENT_FIELDS } from '#app/utils/card-design-fields.ts'
import {
  lockUserCardForEdit,
  logoFingerprint,
  updateUserCard,
  type EditableCardValues,
} from '#models/card-admin.server.ts'
import { type CardLogo } from '#models/card-onboarding.server.ts'
import { withTransaction } from '#models/transaction.server.ts'

/**
 * A card's design and reward saved whole, by its owner (/account/{cardId}/edit) or by an admin: the fields that
 * changed are written, for an admin together with the audit entry ('card.edit', before and after of those fields
 * only), in one transaction. Nothing changed: nothing is written.
 */
export async function editCard({
  adminId = null,
  userId,
  cardId,
  values,
  logo,
}: {
  /** The admin who edits someone's card, or null when the owner edits their own. */
  adminId?: string | null
  userId: string
  cardId: string
  values: EditableCardValues
  logo: CardLogo | 'remove' | null
}): Promise<{ status: 'not-found' } | { status: 'saved'; changed: string[] }> {
  const result = await withTransaction(async (transaction) => {
    const current = await lockUserCardForEdit(userId, cardId, transaction)
    if (!current) return { status: 'not-found' as const }
    const before: Record<string, unknown> = {}
    const after: Record<string, unknown> = {}
    for (const field of CARD_CONTENT_FIELDS) {
      if (current[field] === values[field]) continue
      before[field] = current[field]
      after[field] = values[field]
    }
    const changes = Object.fromEntries(
      Object.keys(after).map((field) => [field, after[field]]),
    ) as Partial<EditableCardValues>
    let logoChange: CardLogo | 'remove' | undefined
    if (logo === 'remove' && current.logo) logoChange = 'remove'
    if (logo && logo !== 'remove' && logoFingerprint(logo)?.md5 !== current.logo?.md5) logoChange = logo
    if (logoChange) {
      before.logo = current.logo
      after.logo = logoChange === 'remove' ? null : logoFingerprint(logoChange)
    }

    const changed = Object.keys(after)
    if (changed.length === 0) return { status: 'saved' as const, changed }
    await updateUserCard(userId, cardId, { values: changes, logo: logoChange }, transaction)
    if (adminId)
      await writeAudit(
        { actorId: adminId, action: 'card.edit', targetType: 'card', targetId: cardId, before, after },
        transaction,
      )
    return { status: 'saved' as const, changed }
  })
  // The card's passes in Apple Wallet were queued an update by the change (migration 0010): send it now.
  if (result.status === 'saved' && result.changed.length) await enqueueWalletUpdates()
  return result
}
