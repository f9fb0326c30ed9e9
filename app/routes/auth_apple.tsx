import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { rateLimitedText } from '#app/server/rate-limit-reply.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { authenticateWithProvider } from '#app/services/auth/social-sign-in.server.ts'

/**
 * Apple's answer: a cross-site form POST (response_mode=form_post) with code, state, and on the first sign-in a
 * `user` field, or `error`. The state is checked against the database and against the browser's binding cookie
 * (SameSite=None on https, so this cross-site POST brings it back); the Origin check exempts this address.
 */
export async function action({ request }: ActionFunctionArgs) {
  const answer = await authenticateWithProvider('apple', request)
  return answer instanceof RateLimitedError ? rateLimitedText(answer) : answer
}

/** A GET (a reload, a bookmark, or Apple answering by query string) goes through the same checks. */
export async function loader({ request }: LoaderFunctionArgs) {
  const answer = await authenticateWithProvider('apple', request)
  return answer instanceof RateLimitedError ? rateLimitedText(answer) : answer
}
