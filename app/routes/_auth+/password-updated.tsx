import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { requireAnonymous } from '#app/services/auth/guest.server.ts'
import { type AuthHandle } from './_layout.tsx'

export const handle: AuthHandle = { backTo: '/login' }

// A pre-made owner's first sign-in after choosing a password opens the card an admin prepared
// (docs/product/passwords-and-tokens.md).
const PREMADE_LANDING = '/premaid_card'

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request)
  const premade = new URL(request.url).searchParams.get('premade') === '1'
  return { loginHref: premade ? `/login?${new URLSearchParams({ redirectTo: PREMADE_LANDING })}` : '/login' }
}

export default function PasswordUpdated() {
  const { loginHref } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>Password updated</h1>
      <p>Your new password is saved, and you have been signed out on every device. Log in with your new password.</p>
      <Link to={loginHref} className="button button--block">
        Login
      </Link>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Password updated — Stampwise' }]
