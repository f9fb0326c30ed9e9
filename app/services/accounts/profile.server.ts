import { notFound } from '#app/server/http-errors.server.ts'
import { queueMail } from '#app/server/mail.server.ts'
import { EMAIL_TAKEN } from '#app/services/auth/auth.server.ts'
import { hashPassword, verifyPassword } from '#app/services/auth/password.server.ts'
import {
  consumeRateLimit,
  RATE_LIMITS,
  resetRateLimit,
  type RateLimitRule,
} from '#app/services/auth/rate-limit.server.ts'
import { endOtherSessions } from '#app/services/auth/session.server.ts'
import { prepareLogo } from '#app/services/cards/logo-image.server.ts'
import { emailChangeEmail, emailChangeNoticeEmail } from '#app/services/mail/emails.server.ts'
import { voidWalletPassesThen } from '#app/services/wallet/wallet-pass-ending.server.ts'
import { PROFILE_MESSAGES } from '#app/utils/profile-schemas.ts'
import { issueToken, revokeTokens } from '#models/one-time-token.server.ts'
import {
  deleteUser,
  findCredentialsById,
  isEmailTaken,
  normalizeEmail,
  removeUserLogo,
  setPassword,
  setUserLogo,
} from '#models/user.server.ts'

/**
 * The owner's own profile: logo, e-mail, password, deletion. Shared by /account/profile and the /api/account
 * calls, so both answer alike. Each result names the field its error belongs to.
 */
export type ProfileResult<Field extends string> =
  { status: 'success'; message: string } | { status: 'error'; field: Field; message: string }

type Account = { id: string; email: string; passwordHash: string | null }

async function requireAccount(userId: string): Promise<Account> {
  const account = await findCredentialsById(userId)
  if (!account) throw notFound('Account not found')
  return account
}

/**
 * Null when the password is right (or the account has none: Google and Apple sign-ins), else the message.
 * Wrong guesses count toward the same per-address limit as failed logins, so a stolen session cannot try many.
 */
async function currentPasswordProblem(account: Account, password: string | undefined): Promise<string | null> {
  if (account.passwordHash === null) return null
  if (!password) return PROFILE_MESSAGES.currentPassword
  // Counted before the check, like a login, so parallel guesses cannot all be checked.
  await consumeRateLimit(RATE_LIMITS.loginFailuresPerEmail, account.email)
  if (await verifyPassword(password, account.passwordHash)) {
    await resetRateLimit(RATE_LIMITS.loginFailuresPerEmail, account.email)
    return null
  }
  return PROFILE_MESSAGES.wrongPassword
}

/** Each request mails an address the owner typed: a few an hour, so the form cannot be used to flood a mailbox. */
const EMAIL_CHANGES_PER_USER: RateLimitRule = { name: 'email-change-user', limit: 5, windowSeconds: 60 * 60 }

export const emailChangeStartedMessage = (email: string) =>
  `We sent a confirmation link to ${email}. Your email address changes when you open it.`

/**
 * Mails a confirmation link to the new address and a notice to the old one; nothing changes until the link is opened.
 */
export async function requestEmailChange(input: {
  userId: string
  email: string
  password?: string
}): Promise<ProfileResult<'email' | 'password'>> {
  const account = await requireAccount(input.userId)
  const newEmail = normalizeEmail(input.email)
  if (newEmail === account.email) return { status: 'error', field: 'email', message: PROFILE_MESSAGES.sameEmail }
  const problem = await currentPasswordProblem(account, input.password)
  if (problem) return { status: 'error', field: 'password', message: problem }
  if (await isEmailTaken(newEmail, account.id)) return { status: 'error', field: 'email', message: EMAIL_TAKEN }
  await consumeRateLimit(EMAIL_CHANGES_PER_USER, account.id)
  // A new request makes the earlier links void: only the latest address can be confirmed.
  await revokeTokens(account.id, 'email_change')
  const token = await issueToken({ userId: account.id, kind: 'email_change', payload: { newEmail } })
  await queueMail({ to: newEmail, ...emailChangeEmail(token) })
  await queueMail({ to: account.email, ...emailChangeNoticeEmail(newEmail) })
  return { status: 'success', message: emailChangeStartedMessage(newEmail) }
}

export const PASSWORD_CHANGED = 'Your password has been changed. Other devices have been signed out.'

/** Sets a new password and signs out every other browser of the account (the one asking stays signed in). */
export async function changeOwnPassword(
  request: Request,
  input: { userId: string; currentPassword?: string; password: string },
): Promise<ProfileResult<'currentPassword'>> {
  const account = await requireAccount(input.userId)
  const problem = await currentPasswordProblem(account, input.currentPassword)
  if (problem) return { status: 'error', field: 'currentPassword', message: problem }
  await setPassword(account.id, await hashPassword(input.password))
  // A reset link mailed before the change must not undo it.
  await revokeTokens(account.id, 'password_reset')
  await endOtherSessions(request, account.id)
  return { status: 'success', message: PASSWORD_CHANGED }
}

export const LOGO_UPDATED = 'Your logo has been updated'
export const LOGO_REMOVED = 'Your logo has been removed'

export async function changeLogo(userId: string, file: Blob): Promise<ProfileResult<'logo'>> {
  const checked = await prepareLogo(Buffer.from(await file.arrayBuffer()))
  if (!checked.ok) return { status: 'error', field: 'logo', message: checked.message }
  await setUserLogo(userId, { data: checked.data, contentType: checked.contentType })
  return { status: 'success', message: LOGO_UPDATED }
}

export async function removeLogo(userId: string): Promise<void> {
  await removeUserLogo(userId)
}

export const PROFILE_DELETED = 'Your profile has been deleted'

/** Deletes the account for good once the owner typed its address; its cards, passes and sessions go with it. */
export async function deleteProfile(input: { userId: string; confirm: string }): Promise<ProfileResult<'confirm'>> {
  const account = await requireAccount(input.userId)
  if (normalizeEmail(input.confirm) !== account.email) {
    return { status: 'error', field: 'confirm', message: PROFILE_MESSAGES.deleteMismatch }
  }
  // Its passes in Apple Wallet are voided first (docs/product/wallets.md, "Ending a card").
  await voidWalletPassesThen({ userId: account.id }, () => deleteUser(account.id))
  return { status: 'success', message: PROFILE_DELETED }
}
