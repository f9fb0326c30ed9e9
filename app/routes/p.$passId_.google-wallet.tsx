import { data, redirect, type HeadersFunction, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { invariantResponse } from '#app/server/http-errors.server.ts'
import { googleWalletSave } from '#app/services/wallet/google-wallet-save.server.ts'
import passStylesHref from '#app/styles/pass.css?url'

/**
 * GET /p/{passId}/google-wallet: 'Save to Google Wallet' (docs/product/wallets.md, "Google pass"). Makes sure the
 * card's class and the pass's object exist at Google (the second exception to "no GET changes data": it records the
 * object it made), then answers 303 to Google's save page. When Google cannot be reached, a 503 page says so and leads
 * back to the card; 404 when Google Wallet is off or the pass does not exist.
 */
export async function loader({ params }: LoaderFunctionArgs) {
  const result = await googleWalletSave(params.passId ?? '')
  invariantResponse(result.status !== 'not-found', 'Card not found')
  if (result.status === 'ok') return redirect(result.url, { status: 303, headers: { 'Cache-Control': 'no-store' } })
  return data(
    { passId: params.passId! },
    { status: 503, headers: { 'Retry-After': '60', 'Cache-Control': 'no-store' } },
  )
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders

export default function GoogleWalletUnavailable() {
  const { passId } = useLoaderData<typeof loader>()
  return (
    <main className="pass-page">
      <h1>Google Wallet can’t be reached</h1>
      <p role="alert">
        Your card could not be saved to Google Wallet just now. Nothing is lost: your card and its stamps are safe.
        Please try again in a minute.
      </p>
      <p className="pass-page__actions">
        <Link to={`/p/${passId}`} className="button" reloadDocument>
          Back to the card
        </Link>
      </p>
    </main>
  )
}

// Only pass.css: the holder's pages stay small for old phones on slow networks (root.tsx).
export const handle = { ownStylesOnly: true }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: passStylesHref }]

export const meta: MetaFunction = () => [{ title: 'Google Wallet can’t be reached — Stampwise' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
