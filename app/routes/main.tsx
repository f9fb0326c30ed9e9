import { type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { Logo } from '#app/components/logo.tsx'
import { checkCardSlot } from '#app/utils/plan-gate.server.ts'
import { requireUserId } from '#app/utils/session.server.ts'

/** Where an owner without a card lands. The card designer (onboarding issue) replaces this page. */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  // The plan's card limit is checked before the designer opens (and again when a card is saved).
  return { cardSlot: await checkCardSlot(userId) }
}

export default function Main() {
  const { cardSlot } = useLoaderData<typeof loader>()
  if (!cardSlot.allowed) {
    return (
      <main id="content" className="container simple-page">
        <h1>You have reached your plan's card limit</h1>
        <p className="lead" role="alert">
          {cardSlot.message}
        </p>
        <p>
          <Link to="/account/tariffs" className="button">
            View plans
          </Link>{' '}
          <Link to={cardSlot.ended ? '/account/limits_trial' : '/account/limits'}>What your plan includes</Link>
        </p>
      </main>
    )
  }
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
