import { type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { noReachOf } from '#app/services/push/card-reach.server.ts'
import pushStylesHref from '#app/styles/push.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { listTemplatesForOwner } from '#models/template.server.ts'
import { NoReachNotice } from './__no-reach-notice.tsx'
import { requirePushCard } from './__push-composer.server.ts'
import { TemplateList } from './__push-templates.tsx'

export const handle: AccountHandle = { title: 'Push-notification', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: pushStylesHref }]

/** …/push_notification/template: the shared templates and the owner's own, each opening the composer. Gated. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { userId, card } = await requirePushCard(request, params.cardId)
  const [templates, noReach] = await Promise.all([
    listTemplatesForOwner(userId),
    noReachOf({ cardId: card.id, ownerId: userId }),
  ])
  const choice = ({ id, title, body }: (typeof templates)[number]) => ({ id, title, body })
  return {
    cardId: card.id,
    noReach,
    shared: templates.filter((template) => template.shared).map(choice),
    own: templates.filter((template) => !template.shared).map(choice),
  }
}

export default function PushTemplates() {
  const { cardId, shared, own, noReach } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>Push-notification</h1>
      <p className="lead">Choose a template to start from: you can change every word before sending.</p>
      {noReach ? <NoReachNotice noReach={noReach} /> : null}
      <section aria-labelledby="shared-templates">
        <h2 id="shared-templates">Ready-made templates</h2>
        <TemplateList cardId={cardId} templates={shared} />
      </section>
      <section aria-labelledby="own-templates">
        <h2 id="own-templates">Your templates</h2>
        {own.length ? (
          <TemplateList cardId={cardId} templates={own} />
        ) : (
          <p className="panel">None yet. Tick ‘Also save as a template’ in the composer to keep a message for later.</p>
        )}
      </section>
      <p>
        <Link to={`/account/${cardId}/push_notification/create`}>Start from scratch instead</Link>
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Push-notification — Stampwise' }]
