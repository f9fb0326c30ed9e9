import { type HeadersFunction } from '@remix-run/node'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'

/** Runs an auth service call, handing back a RateLimitedError instead of throwing it, so the action can answer 429. */
export async function unlessRateLimited<T>(work: Promise<T>): Promise<T | RateLimitedError> {
  try {
    return await work
  } catch (error) {
    if (error instanceof RateLimitedError) return error
    throw error
  }
}

export const retryAfter = (error: RateLimitedError) => ({ 'Retry-After': String(Math.ceil(error.retryAfterSeconds)) })

/** The routes' `headers` export: on a page, Remix passes only cookies on from loaders and actions by itself. */
export const passRetryAfter: HeadersFunction = ({ actionHeaders, loaderHeaders }) => {
  const headers = new Headers()
  const value = actionHeaders.get('Retry-After') ?? loaderHeaders.get('Retry-After')
  if (value) headers.set('Retry-After', value)
  return headers
}
