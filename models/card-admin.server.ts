import crypto from 'node:crypto'
import { fn, col, type InferAttributes, type Transaction } from 'sequelize'
import { CARD_CONTENT_FIELDS, type CardContentField } from '#app/utils/card-design-fields.ts'
import { Card, isUuid } from './card.server.ts'

/**
 * An admin's edit of a user's card (/admin/users/{userId}/cards/{cardId}/edit). The card is found by its owner, the
 * user id in the address, so a card of another user under this user's address is not found (404). Unlike the owner's
 * builder, an edit changes the card's content only: never its status or its onboarding step.
 */
export type EditableCardValues = Pick<InferAttributes<Card>, CardContentField>
/** A logo as the audit log records it: its type and a digest of its bytes (never the bytes). */
export type LogoFingerprint = { contentType: string; md5: string } | null

export const logoFingerprint = (logo: { data: Buffer; contentType: string }): LogoFingerprint => ({
  contentType: logo.contentType,
  md5: crypto.createHash('md5').update(logo.data).digest('hex'),
})

/** The card's editable values and its logo's fingerprint, locked until the transaction ends; null when not found. */
export async function lockUserCardForEdit(
  userId: string,
  cardId: string,
  transaction: Transaction,
): Promise<(EditableCardValues & { logo: LogoFingerprint }) | null> {
  if (!isUuid(userId) || !isUuid(cardId)) return null
  const row = (await Card.findOne({
    attributes: [...CARD_CONTENT_FIELDS, 'logoContentType', [fn('md5', col('logo')), 'logoMd5']],
    where: { id: cardId, userId },
    lock: transaction.LOCK.UPDATE,
    transaction,
    raw: true,
  })) as (EditableCardValues & { logoContentType: string | null; logoMd5: string | null }) | null
  if (!row) return null
  const { logoContentType, logoMd5, ...values } = row
  return { ...values, logo: logoContentType && logoMd5 ? { contentType: logoContentType, md5: logoMd5 } : null }
}

export async function updateUserCard(
  userId: string,
  cardId: string,
  { values, logo }: { values: Partial<EditableCardValues>; logo?: { data: Buffer; contentType: string } | 'remove' },
  transaction: Transaction,
): Promise<void> {
  const logoFields =
    logo === 'remove'
      ? { logo: null, logoContentType: null }
      : logo
        ? { logo: logo.data, logoContentType: logo.contentType }
        : {}
  await Card.update({ ...values, ...logoFields }, { where: { id: cardId, userId }, transaction })
}
