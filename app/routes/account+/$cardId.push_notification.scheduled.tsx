import { parseWithZod } from '@conform-to/zod/v4'
import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { z } from 'zod'
import { UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { IntentButton } from '#app/components/intent-button.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { cancelOwnerBroadcast } from '#app/services/push/scheduled-broadcasts.server.ts'
import pushStylesHref from '#app/styles/push.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { audienceText } from '#app/utils/audience.ts'
import { formatLocalDateTime } from '#app/utils/local-time.ts'
import { listOwnedScheduledBroadcasts } from '#models/scheduled-broadcast.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'
import { confirmPath, pushPath } from './__push-composer.tsx'

const CancelSchema = z.object({
  intent: z.literal('cancel', { error: UNREADABLE_SUBMISSION }),
  id: z.string({ error: UNREADABLE_SUBMISSION }).uuid({ error: UNREADABLE_SUBMISSION }),
})

export const handle: AccountHandle = { title: 'Scheduled messages', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: pushStylesHref }]

/**
 * …/push_notification/scheduled: the card's scheduled messages, soonest first, each with its due time in the
 * business's time zone, its audience and 'Cancel'. Never gated (docs/product/automations.md): an owner whose plan ended
 * can still stop a message from going (it would be skipped then anyway, but they should not have to wait to see that).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const [items, timeZone] = await Promise.all([
    listOwnedScheduledBroadcasts({ ownerId: userId, cardId: card.id }),
    getOwnerTimeZone(userId),
  ])
  return {
    card: { id: card.id, title: card.title },
    timeZone,
    items: items.map((item) => ({
      id: item.id,
      title: item.title,
      body: item.body.length > 120 ? `${item.body.slice(0, 119)}…` : item.body,
      due: formatLocalDateTime(item.scheduledFor, timeZone),
      dueIso: item.scheduledFor.toISOString(),
      audience: audienceText(item.audience),
    })),
  }
}

const WENT: Record<string, string> = {
  cancelled: 'This message was cancelled already.',
  skipped: 'This message was not sent: no messages were left when it was due.',
  draft: 'This message is not scheduled.',
}

/** 'Cancel' (post/redirect/get with a toast): only while it is still scheduled; one that went out says so. */
export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const submission = parseWithZod(await readFormData(request), { schema: CancelSchema })
  if (submission.status !== 'success') return data({ error: UNREADABLE_SUBMISSION }, { status: 400 })
  const outcome = await cancelOwnerBroadcast({ ownerId: userId, cardId: card.id, notificationId: submission.value.id })
  if (!outcome) throw notFound('Message not found')
  const back = pushPath(card.id, '/scheduled')
  if (outcome.cancelled) return redirectWithToast(back, { message: 'The scheduled message was cancelled.' })
  return redirectWithToast(back, {
    message: WENT[outcome.status] ?? 'This message went out already: it can no longer be cancelled.',
    type: 'info',
  })
}

export default function ScheduledMessages() {
  const { card, timeZone, items } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  return (
    <>
      <h1>Scheduled messages</h1>
      <p className="lead">
        {`Messages to the holders of ${card.title || 'this card'} that go out later, soonest first. Times are in ${timeZone}.`}
      </p>
      {actionData?.error ? (
        <p role="alert" className="form-message form-message--error">
          {actionData.error}
        </p>
      ) : null}
      {items.length ? (
        <ol className="history-list scheduled-list">
          {items.map((item) => (
            <li key={item.id} className="panel">
              <p>
                <strong>{item.title}</strong> <span className="badge">Scheduled</span>
              </p>
              <p>{item.body}</p>
              <p className="field-hint">
                <time dateTime={item.dueIso}>{item.due}</time> · {item.audience}
              </p>
              <div className="actions">
                <Link to={confirmPath(card.id, item.id)}>Details</Link>
                <Form method="POST">
                  <input type="hidden" name="intent" value="cancel" />
                  <input type="hidden" name="id" value={item.id} />
                  <IntentButton intent="cancel" pendingLabel="Cancelling…" className="button button--ghost">
                    <span>Cancel</span>
                    <span className="visually-hidden">{` “${item.title}”`}</span>
                  </IntentButton>
                </Form>
              </div>
            </li>
          ))}
        </ol>
      ) : (
        <p className="panel">No messages are scheduled for this card.</p>
      )}
      <p className="actions">
        <Link to={pushPath(card.id)}>Create a push</Link>
        <Link to={pushPath(card.id, '/history')}>Notifications history</Link>
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Scheduled messages — Stampwise' }]
