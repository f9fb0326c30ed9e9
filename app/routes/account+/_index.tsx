import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { CardPreview } from '#app/components/card-preview.tsx'
import { InsightFigures } from '#app/components/insight-figures.tsx'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { CARD_LIMIT_MESSAGE } from '#app/services/billing/plan-gate.server.ts'
import { requireOwnerPlanState } from '#app/services/billing/plan.server.ts'
import { accountInsights } from '#app/services/insights/card-insights.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { localDay, startOfLocalDay } from '#app/utils/local-time.ts'
import { listOwnerCardsWithStats } from '#models/card.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'

export const handle: AccountHandle = { back: 'hidden' }

/**
 * The account home: the last 30 days across all the owner's cards, then each card with its holders and this month's
 * stamps ("this month" in the business's time zone).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const now = new Date()
  const timeZone = await getOwnerTimeZone(userId)
  const monthStart = startOfLocalDay(`${localDay(now, timeZone).slice(0, 8)}01`, timeZone)
  const [cards, state, insights] = await Promise.all([
    listOwnerCardsWithStats(userId, monthStart),
    requireOwnerPlanState(userId, now),
    accountInsights(userId, timeZone, now),
  ])
  const inUse = cards.filter((card) => card.status !== 'archived')
  const drafts = inUse.filter((card) => card.status === 'draft').length
  return {
    cards,
    insights,
    newCard:
      inUse.length < state.cardLimit
        ? { allowed: true as const }
        : { allowed: false as const, message: CARD_LIMIT_MESSAGE(state.cardLimit, drafts) },
  }
}

export default function AccountHome() {
  const { cards, insights, newCard } = useLoaderData<typeof loader>()
  return (
    <>
      <div className="page-heading-row">
        <h1>Your cards</h1>
        {cards.length && newCard.allowed ? (
          <Link to="/main" className="button">
            Create a card
          </Link>
        ) : null}
      </div>
      {!newCard.allowed && cards.length ? (
        <p className="notice-panel">
          {newCard.message} <Link to="/account/tariffs">See the plans</Link>
        </p>
      ) : null}
      {cards.length ? (
        <ul className="account-cards" role="list">
          {cards.map((card) => (
            <li key={card.id} className="panel account-card">
              {/* Named by the preview's own label (title, business, stamps): an aria-label here would hide the
                  card's visible words from the link's name (WCAG 2.5.3, label in name). */}
              <Link to={`/account/${card.id}`}>
                <CardPreview card={card} size="small" />
              </Link>
              {card.status !== 'draft' ? (
                // Straight to the counter from the home (issue 30, item 2); a draft has no holders to stamp yet.
                <Link
                  to={`/account/${card.id}/scan`}
                  className="button button--block"
                  aria-label={`Stamp a card: ${card.title || 'Untitled card'}`}
                >
                  Stamp a card
                </Link>
              ) : null}
              <dl className="account-card__stats">
                <div>
                  <dt>Holders</dt>
                  <dd>{card.holders}</dd>
                </div>
                <div>
                  <dt>Stamps this month</dt>
                  <dd>{card.stampsSince}</dd>
                </div>
              </dl>
              {card.status !== 'active' ? (
                <span className="badge">{card.status === 'draft' ? 'Draft' : 'Archived'}</span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <section className="panel empty-state">
          <h2>Create your first stamp card</h2>
          <p>
            Design a card in a few minutes: your business name, colours, stamps and reward. Then print its QR code for
            the counter, and your customers collect stamps on their phones.
          </p>
          {newCard.allowed ? (
            <Link to="/main" className="button">
              Design your first card
            </Link>
          ) : (
            <p>
              {newCard.message} <Link to="/account/tariffs">See the plans</Link>
            </p>
          )}
        </section>
      )}
      {/* The cards first: at the counter the owner comes to stamp (issue 30, item 2); the month's figures after. */}
      {cards.length ? (
        <section className="panel insights" aria-labelledby="account-insights">
          <h2 id="account-insights">Last {insights.label}, all cards</h2>
          <InsightFigures items={insights.items} previousLabel={insights.label} />
        </section>
      ) : null}
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Your cards — Stampwise' }]
