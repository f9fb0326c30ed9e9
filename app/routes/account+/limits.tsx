import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { getPlanOverview } from '#app/services/billing/plan.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { cardsText, cardUsageText, formatDollars, pushesText, pushUsageText } from '#app/utils/plan-format.ts'
import { listTariffs } from '#models/tariff.server.ts'

// No title in the header (specification, route table).
export const handle: AccountHandle = { back: 'previous' }

/** Shown when a running plan's limit is reached: its card limit or this month's push messages. */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const [{ state, box, quota, cards }, tariffs] = await Promise.all([getPlanOverview(userId), listTariffs()])
  const currentLimit = state.cardLimit
  return {
    box,
    quota,
    cards,
    cardLimitReached: cards.active >= cards.limit,
    pushLimitReached: quota.totalLeft === 0,
    // Bigger plans than the limits in force now.
    upgrades: tariffs.filter(
      (tariff) => tariff.cardLimit > currentLimit || tariff.monthlyPushLimit > state.monthlyPushLimit,
    ),
  }
}

export default function Limits() {
  const { box, quota, cards, cardLimitReached, pushLimitReached, upgrades } = useLoaderData<typeof loader>()
  return (
    <article className="limits-page">
      <h1>Your plan's limits</h1>
      <p className="lead">
        {box.title}. Each plan includes a number of active cards and push messages a month; card holders are always
        unlimited.
      </p>
      <div className="limits-columns">
        <section className={cardLimitReached ? 'panel panel--warning' : 'panel'}>
          <h2>Cards</h2>
          <p>Active cards: {cardUsageText(cards.active, cards.limit, cards.drafts)}.</p>
          {cardLimitReached ? (
            <p>
              To create another card, archive one you no longer use (its holders keep their cards) or choose a bigger
              plan.
            </p>
          ) : null}
        </section>
        <section className={pushLimitReached ? 'panel panel--warning' : 'panel'}>
          <h2>Push messages</h2>
          <p>
            This month: {pushUsageText(quota.usedThisMonth, quota.monthlyLimit)}
            {quota.additionalLeft > 0 ? `, plus ${quota.additionalLeft} additional messages left` : ''}.
          </p>
          {pushLimitReached ? (
            <p>Your monthly messages start again on the 1st (UTC). Need more now? Choose a bigger plan.</p>
          ) : null}
        </section>
      </div>
      {upgrades.length ? (
        <>
          <h2>Plans with more room</h2>
          <ul className="upgrade-list">
            {upgrades.map((tariff) => (
              <li key={tariff.tier}>
                <strong>{tariff.name}</strong>: {cardsText(tariff.cardLimit)}, {pushesText(tariff.monthlyPushLimit)},
                from {formatDollars(tariff.monthlyPriceCents)}/month
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <p className="actions">
        <Link to="/account/tariffs" className="button">
          View plans
        </Link>
      </p>
    </article>
  )
}

export const meta: MetaFunction = () => [{ title: 'Plan limits — Stampwise' }]
