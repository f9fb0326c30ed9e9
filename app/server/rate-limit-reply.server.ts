import { type SubmissionResult } from '@conform-to/react'
import { type HeadersFunction } from '@remix-run/node'
import { formReply } from './form-reply.server.ts'
import { textRefusal } from './http-errors.server.ts'
import { RateLimitedError } from './rate-limited-error.server.ts'

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

/**
 * A page's 429, with Retry-After when the limit says when. A bare message answers without it: the public forms'
 * count gives only its message, and the pages that never sent the header (the account's feedback, the admin's
 * actions, the join page) keep their answer as it was.
 */
export const tooManyRequests = (limit: RateLimitedError | string): ResponseInit =>
  typeof limit === 'string' ? { status: 429 } : { status: 429, headers: retryAfter(limit) }

/** A rate limit where there is no form to show it on (a sign-in link followed): its message as text, Retry-After. */
export const rateLimitedText = (limit: RateLimitedError) => textRefusal(429, limit.message, retryAfter(limit))

type Replying = { reply(options?: { formErrors?: string[]; hideFields?: string[] }): SubmissionResult<string[]> }

/**
 * A page form's answer to a rate limit: `{ result, ...extra }` with the limit's message as the form's error (the
 * fields keep their values; `hideFields`, the passwords, are not sent back), 429, and Retry-After (tooManyRequests).
 */
export function rateLimitedFormReply<Extra extends Record<string, unknown> = Record<never, never>>(
  submission: Replying,
  limit: RateLimitedError | string,
  { hideFields, extra }: { hideFields?: string[]; extra?: Extra } = {},
) {
  const message = typeof limit === 'string' ? limit : limit.message
  const result = submission.reply(hideFields ? { formErrors: [message], hideFields } : { formErrors: [message] })
  return formReply({ result, ...(extra as Extra) }, tooManyRequests(limit))
}

/** The routes' `headers` export: on a page, Remix passes only cookies on from loaders and actions by itself. */
export const passRetryAfter: HeadersFunction = ({ actionHeaders, loaderHeaders }) => {
  const headers = new Headers()
  const value = actionHeaders.get('Retry-After') ?? loaderHeaders.get('Retry-After')
  if (value) headers.set('Retry-After', value)
  return headers
}
