import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, type MetaFunction } from '@remix-run/react'
import { Logo } from '#app/components/logo.tsx'
import { getUserId, signOut } from '#app/services/auth/session.server.ts'

/** Logging out changes data, so only POST does it; GET shows a one-button form (docs/product/contracts.md). */
export async function loader({ request }: LoaderFunctionArgs) {
  if (!(await getUserId(request))) throw redirect('/login')
  return null
}

export async function action({ request }: ActionFunctionArgs) {
  return redirect('/login', { headers: { 'Set-Cookie': await signOut(request) } })
}

export default function Logout() {
  return (
    <main id="content" className="auth-main">
      <div className="auth-card">
        <Link to="/account" className="auth-header__logo" aria-label="Stampwise account">
          <Logo />
        </Link>
        <h1>Log out of Stampwise?</h1>
        <Form method="POST">
          <button type="submit" className="button button--block">
            Log Out
          </button>
        </Form>
        <p className="auth-switch">
          <Link to="/account">Stay signed in</Link>
        </p>
      </div>
    </main>
  )
}

export const meta: MetaFunction = () => [{ title: 'Log out — Stampwise' }]
