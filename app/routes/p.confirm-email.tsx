import { data, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import passStylesHref from '#app/styles/pass.css?url'
import { confirmHolderEmail } from '#models/holder-profile.server.ts'

/**
 * The link a holder's confirmation e-mail carries (issue 34): it confirms the address once, within 48 hours, and
 * only while it is still the one the holder gave. A used, expired or unknown link says so with its status.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get('token') ?? ''
  const outcome = await confirmHolderEmail(token)
  const status = outcome.state === 'confirmed' ? 200 : outcome.state === 'unknown' ? 404 : 410
  return data(
    { state: outcome.state, passId: 'passId' in outcome ? outcome.passId : null },
    { status, headers: { 'Cache-Control': 'no-store' } },
  )
}

const WORDS = {
  confirmed: ['Your e-mail is confirmed', 'With it, you can get your card and its stamps back on a new phone.'],
  used: ['This link was already used', 'Your address was confirmed with it, or you gave another address since.'],
  expired: ['This link has expired', 'Links work for 48 hours. Save your e-mail again on your card to get a new one.'],
  unknown: ['This link is not valid', 'Open the link from the newest e-mail we sent you, as it is.'],
} as const

export default function HolderEmailConfirmed() {
  const { state, passId } = useLoaderData<typeof loader>()
  const [heading, text] = WORDS[state]
  return (
    <main className="pass-page">
      <h1>{heading}</h1>
      <p>{text}</p>
      {passId ? (
        <Link to={`/p/${passId}`} className="button">
          Open my card
        </Link>
      ) : null}
    </main>
  )
}

// Only pass.css: the holder's pages stay small for old phones on slow networks (root.tsx).
export const handle = { ownStylesOnly: true }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: passStylesHref }]

export const meta: MetaFunction = () => [{ title: 'Confirm your e-mail — Stampwise' }]
