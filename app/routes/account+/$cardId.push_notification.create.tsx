import { type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import pushStylesHref from '#app/styles/push.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { NoReachNotice } from './__no-reach-notice.tsx'
import { loadBlankComposer, pushComposerAction } from './__push-composer.server.ts'
import { PushComposer, type ComposerActionData } from './__push-composer.tsx'

export const handle: AccountHandle = { title: 'Create push', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: pushStylesHref }]

/** The blank composer, or `?draft={id}` to change a draft from its confirm page. Gated. */
export async function loader(args: LoaderFunctionArgs) {
  return loadBlankComposer(args)
}

export async function action(args: ActionFunctionArgs) {
  return pushComposerAction(args)
}

export default function CreatePushMessage() {
  const { card, draftId, values, noReach } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ComposerActionData | undefined
  return (
    <>
      <h1>Create push</h1>
      {draftId ? (
        <p className="lead">Change the message, then check it once more before it is sent.</p>
      ) : (
        <p className="lead">
          A message to the holders of <strong>{card.title || 'your card'}</strong>. You check it before it is sent.
        </p>
      )}
      {noReach ? <NoReachNotice noReach={noReach} /> : null}
      <PushComposer
        key={draftId ?? 'new'}
        card={card}
        values={values}
        draftId={draftId}
        lastResult={actionData?.result}
      />
      <p>
        <Link to={`/account/${card.id}/push_notification/template`}>Start from a template instead</Link>
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Create push — Stampwise' }]
