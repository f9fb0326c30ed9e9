import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { logger } from '#app/server/logger.server.ts'
import { queueMail } from '#app/server/mail.server.ts'
import { holderEmailConfirmationEmail } from '#app/services/mail/emails.server.ts'
import {
  HOLDER_FIELDS,
  holderProfileSchema,
  PROFILE_MESSAGES,
  type HolderDetailsSettings,
  type HolderField,
} from '#app/utils/holder-details.ts'
import { correctHolderProfile, saveHolderProfile, type ProfileChange } from '#models/holder-profile.server.ts'
import { normalizePhone } from './phone.server.ts'

/**
 * The holder's side of "Holders who can be found again" (issue 34): reading the details a holder typed (on the join
 * page or their pass) and keeping them, with the link that confirms a new e-mail mailed in the same transaction.
 */

export type HolderDetailsReading =
  { status: 'success'; change: ProfileChange; given: boolean } | { status: 'error'; reply: SubmissionResult<string[]> }

/** The fields the card asks for, read from the form: each optional; a phone in E.164 of the card's country. */
export function readHolderDetails(formData: FormData, settings: HolderDetailsSettings): HolderDetailsReading {
  const submission = parseWithZod(formData, { schema: holderProfileSchema(settings.fields) })
  if (submission.status !== 'success') return { status: 'error', reply: submission.reply() }
  const { birthday, email, name, phone: typedPhone } = submission.value
  const phone = typedPhone === undefined ? undefined : normalizePhone(typedPhone, settings.phoneCountry)
  if (phone === null) {
    return { status: 'error', reply: submission.reply({ fieldErrors: { phone: [PROFILE_MESSAGES.phone] } }) }
  }
  const change: ProfileChange = { name, email, phone, birthday }
  const given = Object.values(change).some((value) => value !== undefined)
  return { status: 'success', change, given }
}

/** Whether a form carries any of the card's fields (the join page's button alone carries none). */
export const carriesHolderFields = (formData: FormData, fields: readonly HolderField[]) =>
  fields.some((field) =>
    (field === 'birthday' ? ['birthDay', 'birthMonth'] : [field]).some((name) => formData.get(name) !== null),
  )

/**
 * Keeps what the holder gave for their pass; a new e-mail gets its confirmation link, queued with the change (both
 * or neither). Null when the pass is gone.
 */
export async function keepHolderDetails({
  passId,
  change,
  businessName,
}: {
  passId: string
  change: ProfileChange
  businessName: string
}) {
  const saved = await saveHolderProfile({ passId, change }, async (toConfirm, transaction) => {
    if (!toConfirm) return
    await queueMail(
      { to: toConfirm.email, ...holderEmailConfirmationEmail({ token: toConfirm.token, businessName }) },
      { transaction },
    )
  })
  // Ids only: what a holder gave never goes into a log line.
  if (saved) logger.info({ passId, emailToConfirm: saved.emailToConfirm !== null }, 'holder details kept')
  return saved
}

/**
 * The owner's correction of a holder's details (/account/{cardId}/holders/{passId}): every field as the form sends
 * it (empty erases it), phones read with the card's country; a changed e-mail gets its confirmation link.
 */
export function readHolderCorrection(formData: FormData, phoneCountry: string): HolderDetailsReading {
  return readHolderDetails(formData, {
    fields: [...HOLDER_FIELDS],
    when: 'after_stamps',
    afterStamps: 1,
    privacyNote: '',
    phoneCountry,
  })
}

export async function correctHolderDetails({
  owned,
  change,
  businessName,
}: {
  owned: { userId: string; cardId: string; passId: string }
  change: ProfileChange
  businessName: string
}) {
  const corrected = await correctHolderProfile(
    {
      ...owned,
      profile: {
        name: change.name ?? null,
        email: change.email ?? null,
        phone: change.phone ?? null,
        birthday: change.birthday ?? null,
      },
    },
    async (toConfirm, transaction) => {
      if (!toConfirm) return
      await queueMail(
        { to: toConfirm.email, ...holderEmailConfirmationEmail({ token: toConfirm.token, businessName }) },
        { transaction },
      )
    },
  )
  if (corrected) logger.info({ passId: owned.passId, cardId: owned.cardId }, 'holder details corrected by the owner')
  return corrected
}
