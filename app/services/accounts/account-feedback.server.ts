import { notFound } from '#app/server/http-errors.server.ts'
import { consumeRateLimit, type RateLimitRule } from '#app/services/auth/rate-limit.server.ts'
import { getPublicUser } from '#models/user.server.ts'
import { submitSupportMessage } from './support.server.ts'

/** Per owner rather than per address: a shop's staff may share one connection. */
export const ACCOUNT_FEEDBACK_LIMIT: RateLimitRule = { name: 'account-feedback', limit: 20, windowSeconds: 60 * 60 }

/**
 * Stores an owner's message (source 'account', with their id and e-mail) and mails it to SUPPORT_EMAIL.
 * Throws RateLimitedError past ACCOUNT_FEEDBACK_LIMIT.
 */
export async function sendAccountFeedback({
  userId,
  subject,
  message,
}: {
  userId: string
  subject?: string
  message: string
}) {
  await consumeRateLimit(ACCOUNT_FEEDBACK_LIMIT, userId)
  const user = await getPublicUser(userId)
  if (!user) throw notFound('Account not found')
  return submitSupportMessage({ source: 'account', userId, email: user.email, subject: subject ?? null, message })
}
