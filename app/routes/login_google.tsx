import { type LoaderFunctionArgs } from '@remix-run/node'
import { rateLimitedText } from '#app/server/rate-limit-reply.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { authenticateWithProvider } from '#app/services/auth/social-sign-in.server.ts'

/** 'Login with Google': sends the browser to Google (keeps ?redirectTo= for after the sign-in); 429 past the limit. */
export async function loader({ request }: LoaderFunctionArgs) {
  const answer = await authenticateWithProvider('google', request)
  return answer instanceof RateLimitedError ? rateLimitedText(answer) : answer
}
