import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { useEffect, useState } from 'react'
import { SubmitButton } from '#app/components/forms.tsx'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { requirePushAccess } from '#app/services/billing/plan-gate.server.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import {
  getPushConfirmData,
  NO_QUOTA_LEFT,
  NO_RECIPIENTS,
  sendOwnerNotification,
} from '#app/services/push/push-send.server.ts'
import pushStylesHref from '#app/styles/push.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { formatDate } from '#app/utils/plan-format.ts'
import {
  CHANNEL_WORDS,
  channelCountsText,
  channelsUsed,
  reachText,
  type ChannelBreakdown,
} from '#app/utils/push-channels.ts'
import { pushStatusText } from '#app/utils/push-status.ts'
import { pushCard } from './__push-composer.server.ts'
import { confirmPath, NotificationPreview, pushPath } from './__push-composer.tsx'
import type { DeliveryProgress as DeliveryCounts } from '#models/notification.server.ts'

export const handle: AccountHandle = { title: 'Push-notification', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: pushStylesHref }]

/**
 * …/confirm/{notificationId}. A draft: its preview, reach and quota, 'Edit' and 'Send' (gated like the other push
 * pages). Once sent: its delivery progress, which the page polls with JavaScript and a reload shows without. The
 * progress of a sent message stays visible even when the gate would refuse now (the plan ended meanwhile): it
 * sends nothing, and the history is never gated either.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const confirm = await getPushConfirmData({
    ownerId: userId,
    cardId: card.id,
    notificationId: params.notificationId ?? '',
  })
  if (!confirm) throw notFound('Message not found')
  const { notification, recipients, reach, quota } = confirm
  if (notification.status === 'draft') await requirePushAccess(userId)
  const warnings =
    notification.status !== 'draft'
      ? []
      : [recipients === 0 ? NO_RECIPIENTS : null, quota.totalLeft <= 0 ? NO_QUOTA_LEFT : null]
  return {
    card: pushCard(card),
    notification: {
      id: notification.id,
      title: notification.title,
      body: notification.body,
      link: notification.link,
      status: notification.status,
      queuedAt: notification.queuedAt?.toISOString() ?? null,
      progress: notification.progress,
    },
    recipients,
    reach,
    quota,
    warnings: warnings.filter((warning): warning is string => warning !== null),
  }
}

/** 'Send': takes the quota and queues the message, then back here (post/redirect/get) to watch the progress. */
export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  await requirePushAccess(userId)
  const cardId = params.cardId ?? ''
  const result = await sendOwnerNotification({ ownerId: userId, cardId, notificationId: params.notificationId ?? '' })
  if (!result.ok) {
    if (result.status === 404) throw notFound(result.message)
    return data({ message: result.message }, { status: result.status })
  }
  const devices = result.notification.progress.total
  return redirectWithToast(confirmPath(cardId, result.notification.id), {
    message: `Sending to ${devices === 1 ? '1 device' : `${devices} devices`}.`,
  })
}

export default function ConfirmPush() {
  const { card, notification, reach, quota, warnings } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  return (
    <>
      <h1>Push-notification</h1>
      <div className="push-confirm">
        <NotificationPreview card={card} title={notification.title} body={notification.body} link={notification.link} />
        {notification.status === 'draft' ? (
          <section className="push-confirm__details" aria-label="Before sending">
            <p className="push-confirm__reach">{reachText(reach)}</p>
            <dl className="facts">
              <dt>Used this month</dt>
              <dd>{`${quota.usedThisMonth} of ${quota.monthlyLimit} messages`}</dd>
              <dt>Left this month</dt>
              <dd>{quota.monthlyLeft}</dd>
              <dt>Additional messages</dt>
              <dd>{quota.additionalLeft}</dd>
            </dl>
            {warnings.map((warning) => (
              <p key={warning} className="notice-panel">
                {warning}
              </p>
            ))}
            {actionData?.message ? (
              <div role="alert" className="form-message form-message--error">
                <p>{actionData.message}</p>
              </div>
            ) : null}
            <div className="actions">
              <Form method="POST">
                <SubmitButton pendingLabel="Sending…">Send</SubmitButton>
              </Form>
              <Link className="button button--ghost" to={`${pushPath(card.id, '/create')}?draft=${notification.id}`}>
                Edit
              </Link>
            </div>
          </section>
        ) : (
          <DeliveryProgress cardId={card.id} notification={notification} />
        )}
      </div>
    </>
  )
}

type Progress = DeliveryCounts
type LiveState = { status: string; progress: Progress }
const FINISHED = new Set(['done', 'failed'])
const POLL_MS = 1000

/** With JavaScript, asks the confirm-data call every second until the message is finished; a 401 or 404 stops it. */
function useLiveProgress(initial: LiveState, dataUrl: string): LiveState {
  const [live, setLive] = useState(initial)
  const [retry, setRetry] = useState(0)
  useEffect(() => setLive(initial), [initial])
  useEffect(() => {
    if (FINISHED.has(live.status)) return
    let stopped = false
    const timer = window.setTimeout(async () => {
      try {
        const response = await fetch(dataUrl, { headers: { Accept: 'application/json' } })
        if (stopped || response.status === 401 || response.status === 404) return
        if (!response.ok) throw new Error(`status ${response.status}`)
        const answer = (await response.json()) as { notification: LiveState }
        if (!stopped) setLive({ status: answer.notification.status, progress: answer.notification.progress })
      } catch {
        if (!stopped) setRetry((count) => count + 1)
      }
    }, POLL_MS)
    return () => {
      stopped = true
      window.clearTimeout(timer)
    }
  }, [live, retry, dataUrl])
  return live
}

function DeliveryProgress({
  cardId,
  notification,
}: {
  cardId: string
  notification: { id: string; status: string; queuedAt: string | null; progress: Progress }
}) {
  const { status, progress } = useLiveProgress(notification, `/api${confirmPath(cardId, notification.id)}/data`)
  const finished = FINISHED.has(status)
  return (
    <section className="push-confirm__details push-progress" aria-label="Delivery">
      <p>
        Status: <span className="badge push-progress__status">{pushStatusText({ status, ...progress })}</span>
        {notification.queuedAt ? ` · sent on ${formatDate(notification.queuedAt)}` : null}
      </p>
      <div aria-live="polite">
        <label
          className="push-progress__label"
          htmlFor="push-progress-bar"
        >{`${progress.percent} % delivered or failed`}</label>
        <progress id="push-progress-bar" max={100} value={progress.percent}>{`${progress.percent} %`}</progress>
        <dl className="facts push-progress__counts">
          <dt>Sent</dt>
          <dd className="push-progress__sent">{progress.sent}</dd>
          <dt>Failed</dt>
          <dd className="push-progress__failed">{progress.failed}</dd>
          <dt>Pending</dt>
          <dd className="push-progress__pending">{progress.pending}</dd>
        </dl>
        <ChannelCounts channels={progress.channels} />
      </div>
      <div className="actions">
        {finished ? null : (
          <Link className="button button--ghost" to={confirmPath(cardId, notification.id)} reloadDocument>
            Refresh
          </Link>
        )}
        <Link to={pushPath(cardId, '/history')}>Notifications history</Link>
        <Link to={pushPath(cardId)}>Create another push</Link>
      </div>
    </section>
  )
}

/**
 * Sent / failed / pending on each channel the message goes through, once one besides web push is involved (a web
 * push alone is what the totals above already say). Short rows that wrap, so 360 px never scrolls sideways.
 */
function ChannelCounts({ channels }: { channels: ChannelBreakdown }) {
  const used = channelsUsed(channels)
  if (used.every((channel) => channel === 'web')) return null
  return (
    <ul className="push-channels" aria-label="By channel">
      {used.map((channel) => (
        <li key={channel} className={`push-channels__item push-channels__item--${channel}`}>
          <strong>{CHANNEL_WORDS[channel].name}:</strong> <span>{channelCountsText(channels[channel], 'sent')}</span>
        </li>
      ))}
    </ul>
  )
}

export const meta: MetaFunction = () => [{ title: 'Push-notification — Stampwise' }]
