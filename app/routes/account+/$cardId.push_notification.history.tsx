import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { formatDate } from '#app/utils/plan-format.ts'
import { CHANNEL_WORDS, channelCountsText, channelsUsed } from '#app/utils/push-channels.ts'
import { pushStatusText } from '#app/utils/push-status.ts'
import { listCardNotifications } from '#models/notification.server.ts'

const PER_PAGE = 20

export const handle: AccountHandle = { title: 'Notifications history', back: 'account' }

/**
 * Every message sent to a card's holders, newest first, with delivered / failed / pending over every channel and,
 * when a wallet is involved, per channel. Never gated: an ended plan keeps its history.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const requested = Number(new URL(request.url).searchParams.get('page') ?? '1')
  const page = Number.isInteger(requested) && requested > 0 && requested < 100_000 ? requested : 1
  const { items, total } = await listCardNotifications({ cardId: card.id, userId }, { page, perPage: PER_PAGE })
  return { card: { id: card.id, title: card.title }, items, page, pages: Math.max(1, Math.ceil(total / PER_PAGE)) }
}

export default function NotificationsHistory() {
  const { card, items, page, pages } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>Notifications history</h1>
      <p className="lead">Messages sent to the holders of {card.title || 'this card'}, newest first.</p>
      {items.length ? (
        <ol className="history-list">
          {items.map((item) => (
            <li key={item.id} className="panel">
              <p>
                <strong>{item.title}</strong> <span className="badge">{pushStatusText(item)}</span>
              </p>
              <p>{item.body}</p>
              <p className="field-hint">
                {formatDate(item.queuedAt ?? item.createdAt)} · {item.sent} delivered · {item.failed} failed ·{' '}
                {item.pending} pending
              </p>
              {channelsUsed(item.channels).some((channel) => channel !== 'web') ? (
                <ul className="history-channels" aria-label="By channel">
                  {channelsUsed(item.channels).map((channel) => (
                    <li key={channel} className="field-hint">
                      {`${CHANNEL_WORDS[channel].name}: ${channelCountsText(item.channels[channel], 'delivered')}`}
                    </li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ol>
      ) : (
        <p className="panel">No messages have been sent to this card's holders yet.</p>
      )}
      {pages > 1 ? (
        <nav aria-label="Pages" className="pagination">
          {page > 1 ? <Link to={`?page=${page - 1}`}>Newer</Link> : null}
          <span>
            Page {page} of {pages}
          </span>
          {page < pages ? <Link to={`?page=${page + 1}`}>Older</Link> : null}
        </nav>
      ) : null}
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Notifications history — Stampwise' }]
