import { unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { consumeRateLimit, RATE_LIMITS, RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'

/**
 * The public forms (/contacts, /feedback) store at most RATE_LIMITS.publicFormsPerIp messages an hour from one
 * address. Counts one message; answers the message to show when the limit is passed, else null.
 */
export async function publicFormLimitMessage(request: Request): Promise<string | null> {
  const limited = await unlessRateLimited(consumeRateLimit(RATE_LIMITS.publicFormsPerIp, clientAddress(request)))
  return limited instanceof RateLimitedError ? limited.message : null
}
