import { type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, type MetaFunction } from '@remix-run/react'
import { Logo } from '#app/components/logo.tsx'
import { requireUserId } from '#app/utils/session.server.ts'

/** Where an owner without a card lands. The card designer (onboarding issue) replaces this page. */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUserId(request)
  return null
}

export default function Main() {
  return (
    <main id="content" className="container simple-page">
      <header className="simple-page__header">
        <Link to="/account" aria-label="Stampwise account">
          <Logo />
        </Link>
        <Form method="POST" action="/logout">
          <button type="submit" className="button button--ghost">
            Log Out
          </button>
        </Form>
      </header>
      <h1>Welcome to Stampwise!</h1>
      <p className="lead">
        Next you will design your first stamp card: its name, colours, stamps and reward. The card designer is on its
        way.
      </p>
      <Link to="/account" className="button">
        Go to your account
      </Link>
    </main>
  )
}

export const meta: MetaFunction = () => [{ title: 'Welcome — Stampwise' }]
