import { type LoaderFunctionArgs } from '@remix-run/node'
import { authenticateWithProvider } from '#app/services/auth/social-sign-in.server.ts'

/** Google's answer (a redirect with code and state, or error): signs in, or back to /login with the reason. */
export async function loader({ request }: LoaderFunctionArgs) {
  return authenticateWithProvider('google', request)
}
