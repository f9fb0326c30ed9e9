/**
 * A rate limit was hit (app/services/auth/rate-limit.server.ts throws it). Here, in the ground, because the HTTP
 * helpers (api.server.ts, rate-limit-reply.server.ts) turn it into a 429 and import no service.
 */
export class RateLimitedError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many attempts. Please try again in ${describeWait(retryAfterSeconds)}.`)
  }
}

function describeWait(seconds: number) {
  if (seconds < 90) return `${Math.max(1, Math.ceil(seconds))} seconds`
  // A day's window (the owner's invitations) in hours, not a thousand minutes.
  if (seconds > 90 * 60) return `${Math.ceil(seconds / 3600)} hours`
  return `${Math.ceil(seconds / 60)} minutes`
}
