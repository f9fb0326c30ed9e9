import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { readFormData } from '#app/server/form-data.server.ts'
import { isMultipart, readLimitedMultipart } from '#app/server/multipart-upload.server.ts'
import { CardEditSchema, type CardEditInput } from '#app/utils/card-design-schema.ts'
import { LOGO_MAX_BYTES, LOGO_MESSAGES } from '#app/utils/logo-image.ts'
import { type CardLogo } from '#models/card-onboarding.server.ts'
import { prepareLogo } from './logo-image.server.ts'

/**
 * The server side of the card designer's form (app/components/card-design-form.tsx), shared by /main and the
 * card edits (the owner's and an admin's): its body (multipart with the logo, or a plain form) and the logo choice
 * it carries.
 */

// The logo and the text fields with their multipart framing; anything bigger is refused while it streams in.
const MAX_UPLOAD_BODY = LOGO_MAX_BYTES + 64 * 1024

/** The form's fields; a refused body (too large, unreadable) as the logo's error message. */
export async function readDesignFormData(request: Request): Promise<{ formData: FormData } | { logoError: string }> {
  if (!isMultipart(request)) return { formData: await readFormData(request) }
  const read = await readLimitedMultipart(request, { maxPartBytes: LOGO_MAX_BYTES, maxBodyBytes: MAX_UPLOAD_BODY })
  if (read.status === 'ok') return { formData: read.formData }
  return { logoError: read.status === 'too-large' ? LOGO_MESSAGES.tooLarge : LOGO_MESSAGES.unreadable }
}

/** A new logo (checked by its content and prepared), 'remove', or null to keep the current one. */
export async function readLogoChoice(
  formData: FormData,
): Promise<{ logo: CardLogo | 'remove' | null } | { logoError: string }> {
  const upload = formData.get('logo')
  if (upload instanceof File && upload.size > 0) {
    const checked = await prepareLogo(Buffer.from(await upload.arrayBuffer()))
    if (!checked.ok) return { logoError: checked.message }
    return { logo: { data: checked.data, contentType: checked.contentType } }
  }
  return { logo: formData.get('removeLogo') === 'on' ? 'remove' : null }
}

/**
 * The whole card-edit form (design and reward, CardEditSchema) of the owner's and the admin's edit pages: the values
 * and the logo choice, or the 400 reply with the fields' messages (a refused body or logo as the logo's).
 */
export async function readCardEditForm(
  request: Request,
): Promise<{ values: CardEditInput; logo: CardLogo | 'remove' | null } | { reply: SubmissionResult<string[]> }> {
  const read = await readDesignFormData(request)
  if ('logoError' in read)
    return {
      reply: parseWithZod(new FormData(), { schema: CardEditSchema }).reply({
        fieldErrors: { logo: [read.logoError] },
      }),
    }
  const submission = parseWithZod(read.formData, { schema: CardEditSchema })
  if (submission.status !== 'success') return { reply: submission.reply() }
  const choice = await readLogoChoice(read.formData)
  if ('logoError' in choice) return { reply: submission.reply({ fieldErrors: { logo: [choice.logoError] } }) }
  return { values: submission.value, logo: choice.logo }
}
