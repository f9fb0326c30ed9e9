import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { notFound } from '#app/server/http-errors.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { progressOf, schemeOf, stampsOfGoal } from '#app/services/cards/loyalty-scheme.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { reachText } from '#app/utils/holders-query.ts'
import { formatLocalDate, formatLocalDateTime } from '#app/utils/local-time.ts'
import { getHolder, listHolderEvents, listHolderMessages, type HolderEvent } from '#models/holders.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'

/** The newest events and messages a holder's page shows (the page says when there are older ones). */
const EVENTS_SHOWN = 200
const MESSAGES_SHOWN = 100

export const handle: AccountHandle = { title: 'Holder', back: 'previous' }

/**
 * One holder of the owner's card: who they are, and their stamps, undos, redemptions and the messages that reached
 * them, newest first. Another owner's pass, a pass of another card and an id that is not one are all 404.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const owned = { cardId: card.id, userId, passId: params.passId ?? '' }
  const holder = await getHolder(owned)
  if (!holder) throw notFound('Holder not found')
  const [timeZone, history, inbox] = await Promise.all([
    getOwnerTimeZone(userId),
    listHolderEvents(owned, EVENTS_SHOWN),
    listHolderMessages(owned, MESSAGES_SHOWN),
  ])
  return {
    card: { id: card.id, title: card.title, reward: card.reward },
    holder: {
      shortCode: holder.shortCode,
      joined: formatLocalDate(holder.joinedAt, timeZone),
      lastVisit: formatLocalDateTime(holder.lastVisitAt, timeZone),
      stamps: stampsOfGoal(progressOf(schemeOf(holder), holder.stamps)),
      rewardsEarned: holder.rewardsEarned,
      rewardsRedeemed: holder.rewardsRedeemed,
      reach: reachText(holder.reach),
    },
    events: history.events.map((event) => ({
      id: event.id,
      text: eventText(event),
      at: formatLocalDateTime(event.at, timeZone),
      undone: event.undoneAt ? formatLocalDateTime(event.undoneAt, timeZone) : null,
    })),
    moreEvents: history.more,
    messages: inbox.messages.map((message) => ({
      id: message.id,
      title: message.title,
      automatic: message.kind !== 'message',
      at: formatLocalDateTime(message.at, timeZone),
      channels: reachText(message.channels),
    })),
    moreMessages: inbox.more,
  }
}

function eventText(event: HolderEvent): string {
  if (event.kind === 'redeem') return 'Reward redeemed'
  if (event.kind === 'undo') return 'Stamp undone'
  return event.count === 1 ? '1 stamp' : `${event.count} stamps`
}

export default function Holder() {
  const { card, holder, events, moreEvents, messages, moreMessages } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>
        Holder <code>{holder.shortCode}</code>
      </h1>
      <p className="lead">
        A holder of {card.title || 'this card'}. <Link to={`/account/${card.id}/holders`}>All holders</Link>
      </p>
      <dl className="holder-facts">
        <div>
          <dt>Joined</dt>
          <dd>{holder.joined}</dd>
        </div>
        <div>
          <dt>Last visit</dt>
          <dd>{holder.lastVisit}</dd>
        </div>
        <div>
          <dt>Stamps now</dt>
          <dd>{holder.stamps}</dd>
        </div>
        <div>
          <dt>Rewards</dt>
          <dd>{`${holder.rewardsEarned} earned, ${holder.rewardsRedeemed} redeemed`}</dd>
        </div>
        <div>
          <dt>Reached by</dt>
          <dd>{holder.reach}</dd>
        </div>
      </dl>
      <section aria-labelledby="holder-visits">
        <h2 id="holder-visits">Stamps and rewards</h2>
        {events.length ? (
          <ol className="holder-history">
            {events.map((event) => (
              <li key={event.id}>
                <span className="holder-history__what">
                  {event.text}
                  {event.undone ? <span className="badge">undone</span> : null}
                </span>{' '}
                <span className="field-hint">{event.at}</span>
              </li>
            ))}
          </ol>
        ) : (
          <p className="panel">No stamps yet.</p>
        )}
        {moreEvents ? (
          <p className="field-hint">{`Showing the newest ${EVENTS_SHOWN}; older ones are not shown.`}</p>
        ) : null}
      </section>
      <section aria-labelledby="holder-messages">
        <h2 id="holder-messages">Messages received</h2>
        {messages.length ? (
          <ol className="holder-history">
            {messages.map((message) => (
              <li key={message.id}>
                <span className="holder-history__what">
                  <strong>{message.title}</strong>
                  {message.automatic ? <span className="badge">automatic</span> : null}
                </span>{' '}
                <span className="field-hint">{`${message.at} · ${message.channels}`}</span>
              </li>
            ))}
          </ol>
        ) : (
          <p className="panel">No messages have reached this holder yet.</p>
        )}
        {moreMessages ? (
          <p className="field-hint">{`Showing the newest ${MESSAGES_SHOWN}; older ones are not shown.`}</p>
        ) : null}
      </section>
    </>
  )
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Holder ${data.holder.shortCode} — Stampwise` : 'Holder — Stampwise' },
]
