import { type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { Logo } from '#app/components/logo.tsx'
import { requireUserId } from '#app/utils/session.server.ts'
import { listOwnerCardSummaries } from '#models/card.server.ts'
import { getPublicUser } from '#models/user.server.ts'

/** The account home in its smallest form: who is signed in and their cards. The account area issue replaces it. */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const [user, cards] = await Promise.all([getPublicUser(userId), listOwnerCardSummaries(userId)])
  if (!user) throw new Response('Account not found', { status: 404 })
  return { email: user.email, cards }
}

export default function Account() {
  const { email, cards } = useLoaderData<typeof loader>()
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
      <h1>Your cards</h1>
      <p>
        Signed in as <strong>{email}</strong>
      </p>
      {cards.length ? (
        <ul className="card-list">
          {cards.map((card) => (
            <li key={card.id} className="panel">
              <strong>{card.title || 'Untitled card'}</strong>
              {card.businessName ? <span> · {card.businessName}</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <div className="panel">
          <p>You have no cards yet.</p>
          <Link to="/main" className="button">
            Design your first card
          </Link>
        </div>
      )}
    </main>
  )
}

export const meta: MetaFunction = () => [{ title: 'Your account — Stampwise' }]
