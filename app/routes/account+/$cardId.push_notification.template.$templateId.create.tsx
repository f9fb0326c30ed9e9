import { type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import pushStylesHref from '#app/styles/push.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { NoReachNotice } from './__no-reach-notice.tsx'
import { loadTemplateComposer, pushComposerAction } from './__push-composer.server.ts'
import { PushComposer, type ComposerActionData } from './__push-composer.tsx'

export const handle: AccountHandle = { title: 'Create push', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: pushStylesHref }]

/** The composer filled from a shared template or one of the owner's own (another owner's is a 404). Gated. */
export async function loader(args: LoaderFunctionArgs) {
  return loadTemplateComposer(args)
}

export async function action(args: ActionFunctionArgs) {
  return pushComposerAction(args)
}

export default function CreatePushFromTemplate() {
  const { card, template, values, noReach } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ComposerActionData | undefined
  return (
    <>
      <h1>Create push</h1>
      <p className="lead">
        From the template <strong>{template.title}</strong>: change what you like, then check it before it is sent.
      </p>
      {noReach ? <NoReachNotice noReach={noReach} /> : null}
      <PushComposer key={template.id} card={card} values={values} draftId={null} lastResult={actionData?.result} />
      <p>
        <Link to={`/account/${card.id}/push_notification/template`}>Choose another template</Link>
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Create push — Stampwise' }]
