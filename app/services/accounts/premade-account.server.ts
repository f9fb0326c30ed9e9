import crypto from 'node:crypto'
import { UniqueConstraintError, type Transaction } from 'sequelize'
import { queueMail } from '#app/server/mail.server.ts'
import { AdminActionError } from '#app/services/admin/admin-actions.server.ts'
import { writeAudit } from '#app/services/admin/audit.server.ts'
import { EMAIL_TAKEN } from '#app/services/auth/auth.server.ts'
import { hashPassword } from '#app/services/auth/password.server.ts'
import { premadeInvitationEmail } from '#app/services/mail/emails.server.ts'
import { type PremadeAccountInput } from '#app/utils/admin-schemas.ts'
import { CARD_CONTENT_FIELDS, pickFields } from '#app/utils/card-design-fields.ts'
import { cardSlug } from '#models/card-onboarding.server.ts'
import { createReadyCard as insertReadyCard, isCardSlugTaken } from '#models/ready-card.server.ts'
import { startTrial } from '#models/subscription.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import { createUser, isEmailTaken } from '#models/user.server.ts'

/**
 * A pre-made account (docs/product/passwords-and-tokens.md, "Pre-made accounts"): an admin creates an owner with a
 * ready, active card, and the owner gets an e-mail with a one-time password. It is stored like a password (only its
 * slow hash), on an account marked is_premade: sign-in with it never opens a session, it answers `premaid` with a
 * change-password token (auth.server.ts logIn), and choosing a password clears is_premade, so the one-time password
 * stops working. Until then the owner may sign in with it again (an abandoned change-password page is no dead end).
 */

// No look-alikes (0/O, 1/l/I): the owner may type it from the e-mail. 24 characters of 56: about 139 bits.
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789'
export function generateOneTimePassword(): string {
  const characters = Array.from({ length: 24 }, () => ALPHABET[crypto.randomInt(ALPHABET.length)])
  return [0, 6, 12, 18].map((start) => characters.slice(start, start + 6).join('')).join('-')
}

export async function createPremadeAccount({ actorId, input }: { actorId: string; input: PremadeAccountInput }) {
  const oneTimePassword = generateOneTimePassword()
  const passwordHash = await hashPassword(oneTimePassword)
  const created = await withTransaction(async (transaction) => {
    if (await isEmailTaken(input.email, undefined, transaction)) throw new AdminActionError(EMAIL_TAKEN, 'email')
    const user = await createUser({ email: input.email, passwordHash, isPremade: true }, transaction)
    await startTrial(user.id, transaction, 'pre-made account created by an admin')
    const card = await createReadyCard(user.id, input, transaction)
    await writeAudit(
      {
        actorId,
        action: 'account.create_premade',
        targetType: 'user',
        targetId: user.id,
        before: null,
        after: { email: user.email, isPremade: true, status: 'trial', card },
      },
      transaction,
    )
    return { userId: user.id, email: user.email, cardId: card.id }
  }).catch((error: unknown) => {
    // Another request took the address between the check and the insert.
    if (error instanceof UniqueConstraintError) throw new AdminActionError(EMAIL_TAKEN, 'email')
    throw error
  })
  // After the commit, so no mail goes out for an account that was not created.
  await queueMail({ to: created.email, ...premadeInvitationEmail(oneTimePassword) })
  return created
}

/** The owner's card, active (holders can join at once) and with its onboarding finished: there is nothing to resume. */
async function createReadyCard(userId: string, input: PremadeAccountInput, transaction: Transaction) {
  const design = pickFields(input, CARD_CONTENT_FIELDS)
  // A taken slug would abort the transaction, so a free one is found before the insert (a clash is very rare).
  let slug = cardSlug(input.businessName)
  while (await isCardSlugTaken(slug, transaction)) slug = cardSlug(input.businessName)
  const card = await insertReadyCard({ userId, slug, premade: true, design }, transaction)
  return { id: card.id, slug, ...design }
}
