import { consumeRateLimit, RATE_LIMITS, RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'

/**
 * The public forms (/contacts, /feedback) store at most RATE_LIMITS.publicFormsPerIp messages an hour from one
 * address. Counts one message; answers the message to show when the limit is passed, else null.
 */
export async function publicFormLimitMessage(request: Request): Promise<string | null> {
  try {
    await consumeRateLimit(RATE_LIMITS.publicFormsPerIp, clientAddress(request))
    return null
  } catch (error) {
    if (error instanceof RateLimitedError) return error.message
    throw error
  }
}
