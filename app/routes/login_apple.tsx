import { type LoaderFunctionArgs } from '@remix-run/node'
import { authenticateWithProvider } from '#app/services/auth/social-sign-in.server.ts'

/** 'Login with Apple': sends the browser to Apple, which answers with a form POST to /auth_apple. */
export async function loader({ request }: LoaderFunctionArgs) {
  return authenticateWithProvider('apple', request)
}
