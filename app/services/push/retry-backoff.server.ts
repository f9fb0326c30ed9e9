/**
 * When a delivery that failed for a passing reason (429, 5xx, no answer) is tried again — web push, Apple Wallet's
 * APNs pushes and Google Wallet's calls alike: exponential from 1 s to at most 10 min, half of it jittered so a
 * service's hiccup does not bring every retry back at once, and never sooner than the service's Retry-After.
 */
const BACKOFF_BASE_MS = 1_000
const BACKOFF_MAX_MS = 10 * 60_000

export function retryBackoffMs(attempts: number, retryAfterMs?: number) {
  const exponential = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempts - 1))
  const jittered = exponential / 2 + Math.random() * (exponential / 2)
  return Math.min(BACKOFF_MAX_MS, Math.max(jittered, retryAfterMs ?? 0))
}
