import { type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { requirePushAccess } from '#app/services/billing/plan-gate.server.ts'
import { getPushQuota } from '#app/services/billing/plan.server.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { cardReach } from '#app/services/push/card-reach.server.ts'
import pushStylesHref from '#app/styles/push.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { reachText } from '#app/utils/push-channels.ts'
import { listTemplatesForOwner } from '#models/template.server.ts'
import { NoReachNotice } from './__no-reach-notice.tsx'
import { TemplateList } from './__push-templates.tsx'

export const handle: AccountHandle = { title: 'Create push', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: pushStylesHref }]

/**
 * Where a push message starts (gated: see requirePushAccess): from scratch or from a template, with the card's
 * reach and the quota left.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const state = await requirePushAccess(userId)
  const card = await requireOwnedCard(userId, params.cardId)
  const [quota, { reach, noReach }, templates] = await Promise.all([
    getPushQuota(userId, state),
    cardReach({ cardId: card.id, ownerId: userId }),
    listTemplatesForOwner(userId),
  ])
  return {
    card: { id: card.id, title: card.title, businessName: card.businessName },
    quota,
    reach,
    noReach,
    templates: templates.map(({ id, title, body }) => ({ id, title, body })),
  }
}

export default function CreatePush() {
  const { card, quota, reach, noReach, templates } = useLoaderData<typeof loader>()
  const base = `/account/${card.id}/push_notification`
  return (
    <>
      <h1>Create push</h1>
      <p className="lead">
        A message to the holders of <strong>{card.title || 'your card'}</strong> who turned on notifications or added it
        to Apple Wallet or Google Wallet. {`${reachText(reach)} today.`}
      </p>
      {noReach ? <NoReachNotice noReach={noReach} /> : null}
      <dl className="facts">
        <dt>This month</dt>
        <dd>{`${quota.usedThisMonth} of ${quota.monthlyLimit} messages sent`}</dd>
        <dt>Additional messages</dt>
        <dd>{quota.additionalLeft}</dd>
        <dt>You can send</dt>
        <dd>{quota.totalLeft === 1 ? '1 more message' : `${quota.totalLeft} more messages`}</dd>
      </dl>
      <ul className="push-start" aria-label="How to start">
        <li>
          <Link className="panel push-start__choice" to={`${base}/create`}>
            <strong>Start from scratch</strong>
            <span>Write your own title and message.</span>
          </Link>
        </li>
        <li>
          <Link className="panel push-start__choice" to={`${base}/template`}>
            <strong>Use a template</strong>
            <span>Pick a ready-made message or one you saved, and change what you like.</span>
          </Link>
        </li>
      </ul>
      <p className="field-hint">
        Messages that go by themselves (welcome, one stamp to go, we miss you…) are set on{' '}
        <Link to={`/account/${card.id}/automations`}>Automatic messages</Link>.
      </p>
      <h2>Templates</h2>
      <TemplateList cardId={card.id} templates={templates} />
      <p className="actions">
        <Link to={`${base}/history`}>Notifications history</Link>
        <Link to={`${base}/scheduled`}>Scheduled messages</Link>
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Create push — Stampwise' }]
