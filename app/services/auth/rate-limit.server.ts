import { getEnv } from '#app/server/env.server.ts'
import { RateLimitedError } from '#app/server/rate-limited-error.server.ts'
import { countAttempt, deleteAttemptCounter, deleteExpiredAttemptCounters } from '#models/rate-limit.server.ts'
import { rateLimitAddress } from './rate-limit-address.server.ts'

// Thrown here, answered as a 429 by the HTTP helpers of app/server, where the class lives.
export { RateLimitedError }

/**
 * Fixed-window counters kept in the database, so limits hold across processes and restarts
 * (docs/product/hardening.md, "Rate limits"). RATE_LIMIT_FACTOR multiplies every limit.
 */
export type RateLimitRule = {
  name: string
  limit: number
  windowSeconds: number
  /** The subject is a client address: IPv6 counts per /64. */
  perAddress?: true
}

export const RATE_LIMITS = {
  loginFailuresPerEmail: { name: 'login-fail-email', limit: 5, windowSeconds: 15 * 60 },
  loginPerIp: { name: 'login-ip', perAddress: true, limit: 100, windowSeconds: 60 * 60 },
  signupPerIp: { name: 'signup-ip', perAddress: true, limit: 50, windowSeconds: 60 * 60 },
  forgotPasswordPerIp: { name: 'forgot-ip', perAddress: true, limit: 20, windowSeconds: 60 * 60 },
  forgotPasswordPerEmail: { name: 'forgot-email', limit: 5, windowSeconds: 60 * 60 },
  resendPerIp: { name: 'resend-ip', perAddress: true, limit: 20, windowSeconds: 60 * 60 },
  resendPerEmail: { name: 'resend-email', limit: 5, windowSeconds: 60 * 60 },
  tokenChecksPerIp: { name: 'token-ip', perAddress: true, limit: 60, windowSeconds: 60 * 60 },
  publicFormsPerIp: { name: 'form-ip', perAddress: true, limit: 20, windowSeconds: 60 * 60 },
  // Holders at one shop often share its Wi-Fi: generous enough for a queue at the counter, not for a script.
  passCreationsPerIp: { name: 'pass-ip', perAddress: true, limit: 300, windowSeconds: 60 * 60 },
  // Apple's pass web service (docs/product/wallets.md): registrations are POST and DELETE calls together.
  appleRegistrationsPerIp: { name: 'apple-registration-ip', perAddress: true, limit: 300, windowSeconds: 60 * 60 },
  appleLogsPerIp: { name: 'apple-log-ip', perAddress: true, limit: 60, windowSeconds: 60 * 60 },
  // An owner's invitations and resends together: each mails an address the owner chose, so a day's count caps what
  // one account can send to strangers (the per-address limit alone allows any number of addresses).
  invitationsPerOwner: { name: 'invite-owner', limit: 20, windowSeconds: 24 * 60 * 60 },
} satisfies Record<string, RateLimitRule>

const limitOf = (rule: RateLimitRule) => Math.max(1, Math.floor(rule.limit * getEnv().RATE_LIMIT_FACTOR))

const keyOf = (rule: RateLimitRule, subject: string) =>
  `${rule.name}:${rule.perAddress ? rateLimitAddress(subject) : subject}`

/**
 * Counts one attempt, then throws RateLimitedError if that attempt passed the window's limit. Counting and reading
 * the count are one statement, so parallel requests each see their own count and at most `limit` get through
 * (docs/product/hardening.md, "Rate limits"): a limit that guards a check (a password, say) is consumed before the
 * check.
 */
export async function consumeRateLimit(rule: RateLimitRule, subject: string): Promise<void> {
  const count = await countAttempt(keyOf(rule, subject), rule.windowSeconds)
  if (count && count.points > limitOf(rule)) throw new RateLimitedError(count.retryAfterSeconds)
}

export async function resetRateLimit(rule: RateLimitRule, subject: string) {
  await deleteAttemptCounter(keyOf(rule, subject))
}

export async function deleteExpiredRateLimits() {
  await deleteExpiredAttemptCounters()
}
