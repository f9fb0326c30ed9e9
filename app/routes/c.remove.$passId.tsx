import {
  data,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LinksFunction,
  type LoaderFunctionArgs,
} from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { invariantResponse } from '#app/server/http-errors.server.ts'
import { enqueueWalletUpdates } from '#app/server/job-queue.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { progressOf, progressWords, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { forgetPassCookie, readRememberedPassId } from '#app/services/passes/pass-cookie.server.ts'
import passStylesHref from '#app/styles/pass.css?url'
import { deletePassCheckedByHolderDevice, getRemovablePass, type RemovablePass } from '#models/pass.server.ts'

/**
 * 'Remove this card': a holder deletes their pass, with its push subscriptions. Only the device that got the card
 * may: the pass id in the address must be the one its join cookie remembers (signed, per card). That cookie is
 * sent only under /c (app/services/passes/pass-cookie.server.ts), hence this address; someone who knows only the pass's
 * address (a shared link, a glance at the screen) can see the card but not remove it
 * (docs/decisions/027-holder-pass-page-ownership.md).
 */
const NOT_THIS_DEVICE =
  'Only the browser this card was got in can remove it (on an iPhone: Safari, not the card added to the Home Screen). Nobody else can, even with its address.'

async function requireRemovablePass(passId: string | undefined) {
  const pass = await getRemovablePass(passId)
  invariantResponse(pass, 'Card not found')
  return pass
}

async function isHoldersDevice(request: Request, pass: RemovablePass) {
  return (await readRememberedPassId(request, pass.cardId)) === pass.id
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const pass = await requireRemovablePass(params.passId)
  const allowed = await isHoldersDevice(request, pass)
  const { id, stamps, stampsRequired, businessName } = pass
  return data(
    { pass: { id, stamps, stampsRequired, businessName }, allowed },
    { status: allowed ? 200 : 403, headers: { 'Cache-Control': 'private, no-store' } },
  )
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders

export async function action({ request, params }: ActionFunctionArgs) {
  const pass = await requireRemovablePass(params.passId)
  if (!(await isHoldersDevice(request, pass))) return data({ error: NOT_THIS_DEVICE }, { status: 403 })
  await deletePassCheckedByHolderDevice({ passId: pass.id, cardId: pass.cardId })
  // Its Google Wallet object goes INACTIVE now rather than at the next minute's resume job.
  await enqueueWalletUpdates()
  // Back to the card's join page, where 'Get my card' starts a new one; a card that takes no holders has none.
  return redirectWithToast(
    pass.joinSlug ? `/c/${pass.joinSlug}` : '/',
    { message: 'Your card was removed', type: 'success', durationMs: 8_000 },
    { status: 303, headers: { 'Set-Cookie': await forgetPassCookie(pass.cardId) } },
  )
}

export default function RemovePass() {
  const { pass, allowed } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const error = actionData && 'error' in actionData ? actionData.error : allowed ? null : NOT_THIS_DEVICE
  const where = pass.businessName ? ` at ${pass.businessName}` : ''
  const progress = progressOf(schemeOf(pass), pass.stamps)
  return (
    <main className="pass-page">
      <h1>Remove this card?</h1>
      {error ? (
        <>
          <p className="pass-page__error" role="alert">
            {error}
          </p>
          <Link to={`/p/${pass.id}`} className="button" reloadDocument>
            Back to the card
          </Link>
        </>
      ) : (
        <>
          <p>{`Your ${progressWords(progress)}${where} will be lost, and notifications from this card stop. This cannot be undone.`}</p>
          <p className="pass-page__note">
            The details you gave for it go too; a Google Wallet pass of it becomes inactive, and an Apple Wallet pass no
            longer updates.
          </p>
          <Form method="post" className="pass-page__actions" onSubmit={() => forgetOnThisDevice(pass.id)}>
            <button type="submit" className="button">
              Remove my card
            </button>
            <Link to={`/p/${pass.id}`} className="button button--ghost" reloadDocument>
              Keep my card
            </Link>
          </Form>
        </>
      )}
    </main>
  )
}

/** With JavaScript: the pass's service worker and its offline copy go too, so the removed card never shows again. */
function forgetOnThisDevice(passId: string) {
  const scope = `/p/${passId}`
  // The worker first: once it is gone, nothing stores the copy again.
  void (navigator.serviceWorker?.getRegistration(scope) ?? Promise.resolve(undefined))
    .then((registration) =>
      registration && new URL(registration.scope).pathname === scope ? registration.unregister() : false,
    )
    .then(() => (typeof caches === 'undefined' ? false : caches.delete(`stampwise-pass-v1:${scope}`)))
    .catch(() => false)
}

// Only pass.css: the holder's pages stay small for old phones on slow networks (root.tsx).
export const handle = { ownStylesOnly: true }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: passStylesHref }]

export const meta: MetaFunction = () => [{ title: 'Remove this card — Stampwise' }]

// A pass already removed has its own words on the holder's page; any other error goes on to the root's page.
export function ErrorBoundary() {
  return <GeneralErrorBoundary statusHandlers={{ 404: () => <PassGone /> }} passOnOthers />
}

function PassGone() {
  return (
    <main className="pass-page pass-page--missing">
      <h1>We can’t find this card</h1>
      <p>It may have been removed already, or the address may be incomplete.</p>
      <Link to="/" className="button">
        Go to Stampwise
      </Link>
    </main>
  )
}
