import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { requirePushAccess } from '#app/utils/plan-gate.server.ts'
import { getPushQuota } from '#app/utils/plan.server.ts'
import { requireUserId } from '#app/utils/session.server.ts'
import { countCardPushSubscribers, getOwnedCard } from '#models/card.server.ts'
import { listTemplatesForOwner } from '#models/template.server.ts'

export const handle: AccountHandle = { title: 'Create push', back: 'previous' }

/**
 * Where a push message starts (gated: see requirePushAccess): the card's reach, the quota left and the templates.
 * The composer, confirm step and delivery come with the push-message issue.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const state = await requirePushAccess(userId)
  const card = await getOwnedCard({ cardId: params.cardId, userId })
  if (!card) throw new Response('Card not found', { status: 404 })
  const [quota, subscribers, templates] = await Promise.all([
    getPushQuota(userId, state),
    countCardPushSubscribers(card.id),
    listTemplatesForOwner(userId),
  ])
  return { card: { id: card.id, title: card.title, businessName: card.businessName }, quota, subscribers, templates }
}

export default function CreatePush() {
  const { card, quota, subscribers, templates } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>Create push</h1>
      <p className="lead">
        A message to the holders of <strong>{card.title || 'your card'}</strong> who turned on notifications:{' '}
        {subscribers === 1 ? '1 device' : `${subscribers} devices`} today.
      </p>
      <dl className="facts">
        <dt>This month</dt>
        <dd>
          {quota.usedThisMonth} of {quota.monthlyLimit} messages sent
        </dd>
        <dt>Additional messages</dt>
        <dd>{quota.additionalLeft}</dd>
        <dt>You can send</dt>
        <dd>{quota.totalLeft === 1 ? '1 more message' : `${quota.totalLeft} more messages`}</dd>
      </dl>
      <h2>Templates</h2>
      <ul className="template-list">
        {templates.map((template) => (
          <li key={template.id} className="panel">
            <strong>{template.title}</strong>
            <p>{template.body}</p>
          </li>
        ))}
      </ul>
      <p>
        <Link to={`/account/${card.id}/push_notification/history`}>Notifications history</Link>
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Create push — Stampwise' }]
