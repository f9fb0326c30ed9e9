import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { z } from 'zod'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { isMultipart, readLimitedMultipart } from '#app/server/multipart-upload.server.ts'
import { rateLimitedFormReply, unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import {
  changeLogo,
  changeOwnPassword,
  deleteProfile,
  LOGO_REMOVED,
  removeLogo,
  requestEmailChange,
} from '#app/services/accounts/profile.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { requireUserId, signOut } from '#app/services/auth/session.server.ts'
import { changeOwnerTimeZone } from '#app/services/insights/time-zone-rebuild.server.ts'
import { canonicalTimeZone } from '#app/utils/local-time.ts'
import { LOGO_MAX_BYTES, LOGO_MESSAGES } from '#app/utils/logo-image.ts'
import {
  changeEmailSchema,
  changePasswordSchema,
  deleteProfileSchema,
  LogoSchema,
  PROFILE_MESSAGES,
  TimeZoneSchema,
} from '#app/utils/profile-schemas.ts'
import { getProfileUser, type ProfileUser } from '#models/user.server.ts'

/**
 * The actions of /account/profile, told apart by `intent`. Success redirects with a toast (post/redirect/get);
 * invalid input answers 400 with the form's errors, so every form works without JavaScript.
 */
export const PROFILE_INTENTS = ['logo', 'remove-logo', 'email', 'password', 'time-zone', 'delete'] as const
export type ProfileIntent = (typeof PROFILE_INTENTS)[number]
export type ProfileActionData = { intent: ProfileIntent | null; result: SubmissionResult<string[]> | null }

const PROFILE_PATH = '/account/profile'
// The logo, the intent and the multipart framing; anything bigger is refused while it streams in.
const MAX_UPLOAD_BODY = LOGO_MAX_BYTES + 64 * 1024
const HIDDEN_PASSWORDS = ['password', 'currentPassword', 'confirmPassword']

const answer = (intent: ProfileIntent | null, result: SubmissionResult<string[]> | null) =>
  formReply<ProfileActionData>({ intent, result })

const toProfile = (message: string) => redirectWithToast(PROFILE_PATH, { message })

export async function profileAction(request: Request) {
  const userId = await requireUserId(request)
  const user = await getProfileUser(userId)
  if (!user) throw notFound('Account not found')

  let formData: FormData | null
  if (isMultipart(request)) {
    const read = await readLimitedMultipart(request, { maxPartBytes: LOGO_MAX_BYTES, maxBodyBytes: MAX_UPLOAD_BODY })
    if (read.status !== 'ok') {
      const message = read.status === 'too-large' ? LOGO_MESSAGES.tooLarge : LOGO_MESSAGES.unreadable
      return answer(
        'logo',
        parseWithZod(new FormData(), { schema: LogoSchema }).reply({ fieldErrors: { logo: [message] } }),
      )
    }
    formData = read.formData
  } else {
    // An unreadable body is an empty form: no intent, the same 400 as a form without one.
    formData = await readFormData(request)
  }
  const intent = formData?.get('intent')
  if (!formData || !PROFILE_INTENTS.includes(intent as ProfileIntent)) return answer(null, null)

  const outcome = await unlessRateLimited(handleIntent(request, user, intent as ProfileIntent, formData))
  if (outcome instanceof RateLimitedError) {
    // Only the form-level message: the submitted values stay, the passwords are not sent back.
    const submission = parseWithZod(formData, { schema: z.object({}) })
    return rateLimitedFormReply(submission, outcome, {
      hideFields: HIDDEN_PASSWORDS,
      extra: { intent: intent as ProfileIntent },
    })
  }
  return outcome
}

async function handleIntent(request: Request, user: ProfileUser, intent: ProfileIntent, formData: FormData) {
  switch (intent) {
    case 'logo': {
      const submission = parseWithZod(formData, { schema: LogoSchema })
      if (submission.status !== 'success') return answer(intent, submission.reply())
      const result = await changeLogo(user.id, submission.value.logo)
      if (result.status === 'error')
        return answer(intent, submission.reply({ fieldErrors: { logo: [result.message] } }))
      return toProfile(result.message)
    }
    case 'remove-logo':
      await removeLogo(user.id)
      return toProfile(LOGO_REMOVED)
    case 'email': {
      const submission = parseWithZod(formData, { schema: changeEmailSchema(user.hasPassword) })
      const hideFields = HIDDEN_PASSWORDS
      if (submission.status !== 'success') return answer(intent, submission.reply({ hideFields }))
      const result = await requestEmailChange({ userId: user.id, ...submission.value })
      if (result.status === 'error') {
        return answer(intent, submission.reply({ fieldErrors: { [result.field]: [result.message] }, hideFields }))
      }
      return redirectWithToast(PROFILE_PATH, { message: result.message, durationMs: 8000 })
    }
    case 'password': {
      const submission = parseWithZod(formData, { schema: changePasswordSchema(user.hasPassword) })
      const hideFields = HIDDEN_PASSWORDS
      if (submission.status !== 'success') return answer(intent, submission.reply({ hideFields }))
      const result = await changeOwnPassword(request, { userId: user.id, ...submission.value })
      if (result.status === 'error') {
        return answer(intent, submission.reply({ fieldErrors: { [result.field]: [result.message] }, hideFields }))
      }
      return toProfile(result.message)
    }
    case 'time-zone': {
      const submission = parseWithZod(formData, { schema: TimeZoneSchema })
      if (submission.status !== 'success') return answer(intent, submission.reply())
      const timeZone = canonicalTimeZone(submission.value.timeZone)!
      const change = await changeOwnerTimeZone(user.id, timeZone)
      if (change.status === 'unknown') {
        return answer(intent, submission.reply({ fieldErrors: { timeZone: [PROFILE_MESSAGES.timeZone] } }))
      }
      return toProfile(
        change.status === 'changed'
          ? `Time zone saved: figures are being recounted in ${timeZone}.`
          : `Your time zone stays ${timeZone}.`,
      )
    }
    case 'delete': {
      const submission = parseWithZod(formData, { schema: deleteProfileSchema(user.email) })
      if (submission.status !== 'success') return answer(intent, submission.reply())
      const result = await deleteProfile({ userId: user.id, confirm: submission.value.confirm })
      if (result.status === 'error')
        return answer(intent, submission.reply({ fieldErrors: { confirm: [result.message] } }))
      return redirectWithToast('/', { message: result.message }, { headers: { 'Set-Cookie': await signOut(request) } })
    }
  }
}
