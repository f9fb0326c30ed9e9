import { type LoaderFunctionArgs } from '@remix-run/node'
import { rateLimitedText } from '#app/server/rate-limit-reply.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { authenticateWithProvider } from '#app/services/auth/social-sign-in.server.ts'

/** Google's answer (a redirect with code and state, or error): signs in, or back to /login with the reason. */
export async function loader({ request }: LoaderFunctionArgs) {
  const answer = await authenticateWithProvider('google', request)
  return answer instanceof RateLimitedError ? rateLimitedText(answer) : answer
}
