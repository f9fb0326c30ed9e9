import { getEnv } from '#app/server/env.server.ts'
import { servesDevelopmentTools } from '#app/server/loopback.server.ts'
import { queueMail } from '#app/server/mail.server.ts'
import { DEMO_EMAIL, DEMO_STAFF_EMAIL } from '#app/services/accounts/demo-account.server.ts'
import { confirmationEmail, passwordResetEmail } from '#app/services/mail/emails.server.ts'
import { invitationHoldingAddress, releaseInvitation } from '#app/services/team/invitation-release.server.ts'
import { DEFAULT_TIME_ZONE } from '#app/utils/local-time.ts'
import { consumeToken, inspectToken, issueToken, revokeTokens, type TokenState } from '#models/one-time-token.server.ts'
import { deleteUserSessions } from '#models/session.server.ts'
import { getInvitee } from '#models/staff.server.ts'
import { startTrial } from '#models/subscription.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import {
  changeEmail,
  confirmEmail,
  createUser,
  findCredentialsByEmail,
  getUserEmail,
  hasConfirmedEmail,
  isEmailTaken,
  isTimeZoneKnownToDatabase,
  normalizeEmail,
  setPassword,
} from '#models/user.server.ts'
import { hashPassword, needsRehash, verifyPassword } from './password.server.ts'
import { consumeRateLimit, RATE_LIMITS, resetRateLimit } from './rate-limit.server.ts'

/**
 * Sign-up, sign-in and recovery, shared by the pages and the /api/auth calls so both answer alike.
 * Rate-limit breaches surface as RateLimitedError (429); everything else is a result the caller renders.
 */

export const INVALID_CREDENTIALS = 'Invalid email or password'
export const EMAIL_NOT_CONFIRMED = 'Please confirm your email first. We can send you a new confirmation link.'
export const EMAIL_TAKEN = 'An account with this email already exists'
export const STAFF_SUSPENDED =
  "Your access is paused: the business's plan has fewer staff seats than its team. Please ask the owner."

export const ACCEPT_INVITATION_FIRST = 'Accept your invitation from its e-mail first.'

/**
 * A staff member invited but not joined yet (no password): the invitation, with its expiry and the owner's seats, is
 * their only way in, so the reset and confirmation mails are not sent to them (the answer stays the same) and a reset
 * link they still hold is refused.
 */
export const isPendingInvitee = (user: { role: string; passwordHash: string | null }) =>
  user.role === 'staff' && !user.passwordHash

export type LoginResult =
  | { status: 'success'; userId: string }
  | { status: 'premaid'; token: string }
  | { status: 'error'; code: 'invalid' | 'unconfirmed' | 'suspended'; message: string }

export async function logIn({
  email,
  password,
  ip,
}: {
  email: string
  password: string
  ip: string
}): Promise<LoginResult> {
  const normalized = normalizeEmail(email)
  const demoRefusal = refuseDemoAccount(normalized, ip)
  if (demoRefusal) return demoRefusal
  await consumeRateLimit(RATE_LIMITS.loginPerIp, ip)
  // Every attempt counts as a failure before the password is checked, so parallel guesses cannot all be checked;
  // the right password clears the count.
  await consumeRateLimit(RATE_LIMITS.loginFailuresPerEmail, normalized)
  const user = await findCredentialsByEmail(normalized)
  // verifyPassword spends the same time on a missing hash, so unknown e-mails answer as slowly as wrong passwords.
  const valid = await verifyPassword(password, user?.passwordHash)
  if (!user || !valid || user.disabledAt) return { status: 'error', code: 'invalid', message: INVALID_CREDENTIALS }
  await resetRateLimit(RATE_LIMITS.loginFailuresPerEmail, normalized)
  // Told only after the right password, so it reveals nothing to a guesser.
  if (user.suspendedAt) return { status: 'error', code: 'suspended', message: STAFF_SUSPENDED }
  if (user.isPremade) {
    // A pre-made account signs in once with the invitation's password, then must choose its own.
    await revokeTokens(user.id, 'password_reset')
    return {
      status: 'premaid',
      token: await issueToken({ userId: user.id, kind: 'password_reset', payload: { premade: true } }),
    }
  }
  if (!user.emailConfirmedAt) return { status: 'error', code: 'unconfirmed', message: EMAIL_NOT_CONFIRMED }
  if (needsRehash(user.passwordHash!)) await setPassword(user.id, await hashPassword(password))
  return { status: 'success', userId: user.id }
}

export const DEMO_ACCOUNT_LOCAL_ONLY = 'The demo account signs in only on the computer Stampwise runs on.'

/**
 * The demo accounts' password is published (README): they sign in from this computer only, and never in production.
 */
function refuseDemoAccount(normalizedEmail: string, ip: string): LoginResult | null {
  if (normalizedEmail !== DEMO_EMAIL && normalizedEmail !== DEMO_STAFF_EMAIL) return null
  const { isProduction } = getEnv()
  if (servesDevelopmentTools({ isProduction, clientAddress: ip })) return null
  return { status: 'error', code: 'invalid', message: isProduction ? INVALID_CREDENTIALS : DEMO_ACCOUNT_LOCAL_ONLY }
}

export type SignupResult =
  | { status: 'success'; email: string }
  | { status: 'error'; field: 'email'; message: string }
  /** The address has a pending invitation: the page offers to accept it instead, or to withdraw it and go on. */
  | { status: 'invited'; businessName: string; message: string }

export const invitedMessage = (businessName: string) =>
  `${businessName} invited this address to their team on Stampwise. To join them, use the link in the invitation e-mail. To create your own account instead, confirm it below: the invitation will be withdrawn.`

export async function signUp({
  email,
  password,
  ip,
  timeZone = null,
  withdrawInvitation = false,
}: {
  email: string
  password: string
  ip: string
  /** The browser's zone, canonical (browserTimeZone), or null: UTC. */
  timeZone?: string | null
  /** The person chose their own account over a pending invitation to this address. */
  withdrawInvitation?: boolean
}): Promise<SignupResult> {
  await consumeRateLimit(RATE_LIMITS.signupPerIp, ip)
  const normalized = normalizeEmail(email)
  const passwordHash = await hashPassword(password)
  // A zone the browser knows and the database does not is not worth refusing a sign-up for: UTC, changeable later.
  const zone = timeZone && (await isTimeZoneKnownToDatabase(timeZone)) ? timeZone : DEFAULT_TIME_ZONE
  const created = await withTransaction(async (transaction) => {
    // An invitation holds the address only while pending, and never against its owner's own account (ADR 052).
    const invitation = await invitationHoldingAddress(normalized, transaction)
    if (invitation && !withdrawInvitation) return { kind: 'invited' as const, businessName: invitation.businessName }
    if (invitation) await releaseInvitation(invitation, 'own-account', transaction)
    if (await isEmailTaken(normalized, undefined, transaction)) return null
    const user = await createUser({ email: normalized, passwordHash, timeZone: zone }, transaction)
    await startTrial(user.id, transaction)
    const token = await issueToken({ userId: user.id, kind: 'email_verification' }, transaction)
    return { kind: 'created' as const, token }
  }).catch((error: { name?: string }) => {
    if (error.name === 'SequelizeUniqueConstraintError') return null // two sign-ups raced with one address
    throw error
  })
  if (!created) return { status: 'error', field: 'email', message: EMAIL_TAKEN }
  if (created.kind === 'invited') {
    return { status: 'invited', businessName: created.businessName, message: invitedMessage(created.businessName) }
  }
  await queueMail({ to: normalized, ...confirmationEmail(created.token) })
  return { status: 'success', email: normalized }
}

/** Sends another confirmation link to an unconfirmed account; answers the same whether or not one exists. */
export async function resendConfirmation({ email, ip }: { email: string; ip: string }): Promise<void> {
  const normalized = normalizeEmail(email)
  await consumeRateLimit(RATE_LIMITS.resendPerIp, ip)
  await consumeRateLimit(RATE_LIMITS.resendPerEmail, normalized)
  const user = await findCredentialsByEmail(normalized)
  if (!user || user.emailConfirmedAt || user.disabledAt || isPendingInvitee(user)) return
  // Earlier links stay valid until they expire: owners click whichever mail they see first, and every link
  // confirms the same address (a reset link, by contrast, replaces the earlier ones).
  await queueMail({
    to: normalized,
    ...confirmationEmail(await issueToken({ userId: user.id, kind: 'email_verification' })),
  })
}

/** Mails a reset link when the account exists; the answer never tells whether it does. */
export async function requestPasswordReset({ email, ip }: { email: string; ip: string }): Promise<void> {
  const normalized = normalizeEmail(email)
  await consumeRateLimit(RATE_LIMITS.forgotPasswordPerIp, ip)
  await consumeRateLimit(RATE_LIMITS.forgotPasswordPerEmail, normalized)
  const user = await findCredentialsByEmail(normalized)
  if (!user || user.disabledAt || isPendingInvitee(user)) return
  await revokeTokens(user.id, 'password_reset')
  await queueMail({
    to: normalized,
    ...passwordResetEmail(await issueToken({ userId: user.id, kind: 'password_reset' })),
  })
}

export const TOKEN_MESSAGES = {
  unknown: 'This link is invalid. Please request a new one.',
  expired: 'This link has expired. Please request a new one.',
  used: 'This link has already been used. Please request a new one.',
} as const

export function tokenError(state: TokenState): string | null {
  return state.state === 'valid' ? null : TOKEN_MESSAGES[state.state]
}

export async function checkPasswordResetToken({ token, ip }: { token: string; ip: string }) {
  await consumeRateLimit(RATE_LIMITS.tokenChecksPerIp, ip)
  return inspectToken(token, 'password_reset')
}

export type ChangePasswordResult =
  { status: 'success'; userId: string; premade: boolean } | { status: 'error'; message: string }

/** Sets a new password from a reset (or pre-made) link and signs the account out everywhere. */
export async function changePasswordWithToken({
  token,
  password,
  ip,
}: {
  token: string
  password: string
  ip: string
}): Promise<ChangePasswordResult> {
  await consumeRateLimit(RATE_LIMITS.tokenChecksPerIp, ip)
  const passwordHash = await hashPassword(password)
  const result = await withTransaction(async (transaction): Promise<ChangePasswordResult> => {
    const state = await consumeToken(token, 'password_reset', transaction)
    if (state.state !== 'valid') return { status: 'error', message: tokenError(state)! }
    // A link mailed before the invitation (or before this fix) must not set an invitee's password past its checks.
    const invitee = await getInvitee(state.userId, transaction)
    if (invitee && !invitee.hasPassword) return { status: 'error', message: ACCEPT_INVITATION_FIRST }
    await setPassword(state.userId, passwordHash, transaction)
    // The link came by e-mail, so the address is proven too.
    await confirmEmail(state.userId, transaction)
    return { status: 'success', userId: state.userId, premade: state.payload.premade === true }
  })
  // After the commit: inside the transaction, a second connection would wait forever on the embedded database.
  if (result.status === 'success') await deleteUserSessions(result.userId)
  return result
}

export type ConfirmResult = { status: 'success'; message: string } | { status: 'error'; message: string }

export const EMAIL_CONFIRMED_MESSAGE =
  "Your email has been successfully confirmed! You're all set to start exploring Stampwise."

export const EMAIL_CHANGED_MESSAGE = 'Your new email address is confirmed. Use it to log in from now on.'

/**
 * Confirms an address from its link: a new account's address, or the new address of an e-mail change.
 * Idempotent: opening the link again confirms once and still says so.
 */
export async function confirmEmailWithToken({ token, ip }: { token: string; ip: string }): Promise<ConfirmResult> {
  await consumeRateLimit(RATE_LIMITS.tokenChecksPerIp, ip)
  const state = await consumeToken(token, 'email_verification')
  if (state.state === 'unknown') return confirmEmailChange(token)
  if (state.state === 'valid') {
    await confirmEmail(state.userId)
    return { status: 'success', message: EMAIL_CONFIRMED_MESSAGE }
  }
  if (state.state === 'used' && (await hasConfirmedEmail(state.userId))) {
    return { status: 'success', message: EMAIL_CONFIRMED_MESSAGE }
  }
  return { status: 'error', message: tokenError(state)! }
}

/** Moves the account to the address the link was mailed to, if no other account took it in the meantime. */
async function confirmEmailChange(token: string): Promise<ConfirmResult> {
  try {
    return await withTransaction(async (transaction): Promise<ConfirmResult> => {
      const state = await consumeToken(token, 'email_change', transaction)
      const newEmail = state.state === 'valid' || state.state === 'used' ? String(state.payload.newEmail ?? '') : ''
      if (state.state === 'valid') {
        if (!newEmail || (await isEmailTaken(newEmail, state.userId, transaction)))
          return { status: 'error', message: EMAIL_TAKEN }
        await changeEmail(state.userId, newEmail, transaction)
        return { status: 'success', message: EMAIL_CHANGED_MESSAGE }
      }
      if (state.state === 'used' && newEmail && (await getUserEmail(state.userId, transaction)) === newEmail) {
        return { status: 'success', message: EMAIL_CHANGED_MESSAGE }
      }
      return { status: 'error', message: tokenError(state)! }
    })
  } catch (error) {
    // Another account took the address between the check and the update.
    if ((error as { name?: string }).name === 'SequelizeUniqueConstraintError')
      return { status: 'error', message: EMAIL_TAKEN }
    throw error
  }
}
