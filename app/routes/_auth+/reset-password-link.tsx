import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, type MetaFunction } from '@remix-run/react'
import { requireAnonymous } from '#app/services/auth/guest.server.ts'
import { type AuthHandle } from './_layout.tsx'

export const handle: AuthHandle = { backTo: '/forgot-password' }

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request)
  return null
}

export default function ResetPasswordLink() {
  return (
    <>
      <h1>Check your e-mail</h1>
      <p>
        We have sent a password reset link to the address you entered, if it belongs to a Stampwise account. The link
        works for one hour.
      </p>
      <p>
        No e-mail after a few minutes? Look in your spam folder, or <Link to="/forgot-password">send it again</Link>.
      </p>
      <Link to="/login" className="button button--block">
        Back to login
      </Link>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Reset link sent — Stampwise' }]
