import { data, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { notFound } from '#app/server/http-errors.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { CARD_NOT_FOUND, requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import pushStylesHref from '#app/styles/push.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { AUTOMATIC_NOTIFICATION_NAMES } from '#app/utils/automations.ts'
import {
  automaticCountsText,
  automaticSkippedText,
  broadcastStatusText,
  SKIPPED_REASON_TEXT,
} from '#app/utils/history-words.ts'
import { addDays, formatDay, localDay } from '#app/utils/local-time.ts'
import { formatDate } from '#app/utils/plan-format.ts'
import { CHANNEL_WORDS, channelCountsText, channelsUsed } from '#app/utils/push-channels.ts'
import { listAutomaticHistory } from '#models/automatic-history.server.ts'
import { listCardNotifications } from '#models/notification.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'

const PER_PAGE = 20
/**
 * Days of automatic messages a page shows (`?until=YYYY-MM-DD` moves the window back): a busy card sends thousands a
 * day, and the counts cost an index lookup per message, so a page is two weeks.
 */
const AUTOMATIC_DAYS = 14

export const handle: AccountHandle = { title: 'Notifications history', back: 'account' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: pushStylesHref }]

/**
 * The owner's messages to a card's holders, newest first, with delivered / failed / pending over every channel and,
 * when a wallet is involved, per channel; beside them the automatic messages (stamp pushes, reward earned and the
 * automations) counted per kind and per day of the business. Never gated: an ended plan keeps its history.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const query = new URL(request.url).searchParams
  const requested = Number(query.get('page') ?? '1')
  const page = Number.isInteger(requested) && requested > 0 && requested < 100_000 ? requested : 1
  const timeZone = await getOwnerTimeZone(userId)
  const today = localDay(new Date(), timeZone)
  const askedUntil = query.get('until')
  const untilOk = askedUntil !== null && isDay(askedUntil) && askedUntil <= today
  const lastDay = untilOk ? askedUntil : today
  const untilError =
    askedUntil !== null && !untilOk
      ? `“${askedUntil.slice(0, 40)}” is not a past day such as ${today}: showing the last ${AUTOMATIC_DAYS} days.`
      : null
  const owned = { cardId: card.id, userId }
  const [{ items, total }, automatic] = await Promise.all([
    listCardNotifications(owned, { page, perPage: PER_PAGE }),
    listAutomaticHistory(owned, { timeZone, lastDay, days: AUTOMATIC_DAYS }),
  ])
  // Deleted between the reads: the same answer as a card that is not there.
  if (!automatic) throw notFound(CARD_NOT_FOUND)
  const newerUntil = lastDay < today ? addDays(lastDay, AUTOMATIC_DAYS) : null
  return data(
    {
      card: { id: card.id, title: card.title },
      items,
      page,
      pages: Math.max(1, Math.ceil(total / PER_PAGE)),
      automatic: {
        ...automatic,
        timeZone,
        untilError,
        olderUntil: automatic.older ? addDays(automatic.firstDay, -1) : null,
        newerUntil: newerUntil === null ? null : newerUntil >= today ? '' : newerUntil,
      },
    },
    untilError ? { status: 400 } : undefined,
  )
}

/** A calendar day 'YYYY-MM-DD' that exists (not 2026-02-30), from 2000 on. */
function isDay(text: string) {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && text >= '2000-01-01' && addDays(text, 0) === text
}

/** The page's address with one of its two positions changed (the messages' page, the automatic days' end). */
function historyHref(
  current: { base: string; page: number; until: string },
  change: { page?: number; until?: string },
) {
  const page = change.page ?? current.page
  const until = change.until ?? current.until
  const query = new URLSearchParams()
  if (page > 1) query.set('page', String(page))
  if (until) query.set('until', until)
  const text = query.toString()
  return text ? `${current.base}?${text}` : current.base
}

export default function NotificationsHistory() {
  const { card, items, page, pages, automatic } = useLoaderData<typeof loader>()
  const position = {
    base: `/account/${card.id}/push_notification/history`,
    page,
    until: automatic.newerUntil === null ? '' : automatic.lastDay,
  }
  return (
    <>
      <h1>Notifications history</h1>
      <p className="lead">Messages sent to the holders of {card.title || 'this card'}, newest first.</p>
      <p className="actions">
        <Link to={`/account/${card.id}/push_notification/scheduled`}>Scheduled messages</Link>
        <Link to={`/account/${card.id}/automations`}>Automatic messages settings</Link>
      </p>
      <div className="history-columns">
        <section aria-labelledby="history-messages">
          <h2 id="history-messages">Your messages</h2>
          {items.length ? (
            <ol className="history-list">
              {items.map((item) => (
                <li key={item.id} className="panel">
                  <p>
                    <strong>{item.title}</strong> <span className="badge">{broadcastStatusText(item)}</span>
                  </p>
                  <p>{item.body}</p>
                  {item.status === 'skipped' || item.status === 'cancelled' ? (
                    <p className="field-hint">
                      {`Was due ${formatDate(item.scheduledFor ?? item.createdAt)}`}
                      {item.status === 'skipped' && item.skippedReason
                        ? ` · ${SKIPPED_REASON_TEXT[item.skippedReason] ?? 'Not sent'}`
                        : null}
                    </p>
                  ) : (
                    <p className="field-hint">
                      {formatDate(item.queuedAt ?? item.createdAt)} · {item.sent} delivered · {item.failed} failed ·{' '}
                      {item.pending} pending
                    </p>
                  )}
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
            <nav aria-label="Pages of your messages" className="pagination">
              {page > 1 ? <Link to={historyHref(position, { page: page - 1 })}>Newer</Link> : null}
              <span>
                Page {page} of {pages}
              </span>
              {page < pages ? <Link to={historyHref(position, { page: page + 1 })}>Older</Link> : null}
            </nav>
          ) : null}
        </section>
        <AutomaticHistory automatic={automatic} position={position} />
      </div>
    </>
  )
}

function AutomaticHistory({
  automatic,
  position,
}: {
  automatic: ReturnType<typeof useLoaderData<typeof loader>>['automatic']
  position: { base: string; page: number; until: string }
}) {
  return (
    <section aria-labelledby="history-automatic">
      <h2 id="history-automatic">Automatic messages</h2>
      {automatic.untilError ? (
        <p className="notice-panel" role="alert">
          {automatic.untilError}
        </p>
      ) : null}
      <p className="field-hint">
        Stamp pushes and automatic messages per day, {formatDay(automatic.firstDay)} to {formatDay(automatic.lastDay)},
        days in {automatic.timeZone}. Each goes to one holder.
      </p>
      {automatic.days.length ? (
        <ol className="history-list">
          {automatic.days.map(({ day, kinds }) => (
            <li key={day} className="panel">
              <h3 className="history-day">{formatDay(day)}</h3>
              <ul className="history-kinds">
                {kinds.map((counts) => {
                  const skipped = automaticSkippedText(counts)
                  const channels = channelsUsed(counts.channels)
                  return (
                    <li key={counts.kind}>
                      <p>
                        <strong>{AUTOMATIC_NOTIFICATION_NAMES[counts.kind]}</strong>
                      </p>
                      <p className="field-hint">{automaticCountsText(counts)}</p>
                      {channels.some((channel) => channel !== 'web') ? (
                        <ul className="history-channels" aria-label="By channel">
                          {channels.map((channel) => (
                            <li key={channel} className="field-hint">
                              {`${CHANNEL_WORDS[channel].name}: ${channelCountsText(counts.channels[channel], 'delivered')}`}
                            </li>
                          ))}
                        </ul>
                      ) : null}
                      {skipped ? <p className="field-hint">{skipped}</p> : null}
                    </li>
                  )
                })}
              </ul>
            </li>
          ))}
        </ol>
      ) : (
        <p className="panel">No automatic messages in these days.</p>
      )}
      {automatic.olderUntil || automatic.newerUntil !== null ? (
        <nav aria-label="Days of automatic messages" className="pagination">
          {automatic.newerUntil !== null ? (
            <Link to={historyHref(position, { until: automatic.newerUntil })}>Newer days</Link>
          ) : null}
          {automatic.olderUntil ? (
            <Link to={historyHref(position, { until: automatic.olderUntil })}>Older days</Link>
          ) : null}
        </nav>
      ) : null}
    </section>
  )
}

export const meta: MetaFunction = () => [{ title: 'Notifications history — Stampwise' }]
