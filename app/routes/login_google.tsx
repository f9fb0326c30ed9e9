import { type LoaderFunctionArgs } from '@remix-run/node'
import { authenticateWithProvider } from '#app/services/auth/social-sign-in.server.ts'

/** 'Login with Google': sends the browser to Google (keeps ?redirectTo= for after the sign-in). */
export async function loader({ request }: LoaderFunctionArgs) {
  return authenticateWithProvider('google', request)
}
