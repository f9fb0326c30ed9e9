import { data, type HeadersFunction, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { invariantResponse } from '#app/server/http-errors.server.ts'
import passStylesHref from '#app/styles/pass.css?url'
import { birthdayText, maskedEmail, maskedName, maskedPhone } from '#app/utils/holder-details.ts'
import { getHolderData } from '#models/holder-data.server.ts'

/**
 * 'Your data' (issue 34; DECISIONS.md "The holder's own data"): what Stampwise keeps about the holder of this card,
 * the download of all of it, and the way to delete the card with it. The page shows the details masked (the pass's
 * address is the capability to see the card, not to read the holder's e-mail); the download and the deletion are
 * for the browser that got the card (/c/data/{passId}, /c/remove/{passId}).
 */
const REFUSED =
  'Only the browser this card was got in can download its data (on an iPhone: Safari, not the card added to the Home Screen).'

export async function loader({ request, params }: LoaderFunctionArgs) {
  const found = await getHolderData(params.passId ?? '')
  invariantResponse(found, 'Card not found')
  const { card, pass, profile, history, messages, devices } = found.data
  const refused = new URL(request.url).searchParams.get('download') === 'refused'
  return data(
    {
      passId: params.passId!,
      card,
      pass: { stamps: pass.stamps, rewardsRedeemed: pass.rewardsRedeemed },
      given: profile
        ? ([
            ['Name', profile.name && maskedName(profile.name)],
            ['E-mail', profile.email && maskedEmail(profile.email)],
            ['Phone', profile.phone && maskedPhone(profile.phone)],
            ['Birthday', profile.birthday && birthdayText(profile.birthday)],
          ].filter((row): row is [string, string] => Boolean(row[1])) as [string, string][])
        : [],
      history: history.length,
      messages: messages.length,
      devices,
      refused,
    },
    { status: refused ? 403 : 200, headers: { 'Cache-Control': 'private, no-store' } },
  )
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

export default function HolderDataPage() {
  const { passId, card, pass, given, history, messages, devices, refused } = useLoaderData<typeof loader>()
  const wallets = [
    devices.appleWallet > 0 ? 'Apple Wallet' : null,
    devices.googleWallet ? 'Google Wallet' : null,
  ].filter(Boolean)
  return (
    <main className="pass-page">
      <h1>Your data</h1>
      <p>
        {`What Stampwise keeps for ${card.businessName || 'the business'} about your stamp card. The business sees your stamps and the details you gave; nobody else does.`}
      </p>
      {refused ? (
        <p className="pass-page__error" role="alert">
          {REFUSED}
        </p>
      ) : null}
      <section className="pass-page__keep" aria-labelledby="data-kept">
        <h2 id="data-kept">What is kept</h2>
        <ul className="holder-kept">
          <li>{`Your card: ${plural(pass.stamps, 'stamp', 'stamps')} now, ${plural(pass.rewardsRedeemed, 'reward', 'rewards')} redeemed`}</li>
          <li>{`Its history: ${plural(history, 'stamp, undo or redemption', 'stamps, undos and redemptions')}, each with its time`}</li>
          <li>{`Messages that reached you: ${messages}`}</li>
          <li>{`Browsers with notifications on: ${devices.browsers}`}</li>
          <li>{`Wallets: ${wallets.length > 0 ? wallets.join(' and ') : 'none'}`}</li>
          {given.length > 0 ? (
            given.map(([label, value]) => <li key={label}>{`${label}: ${value}`}</li>)
          ) : (
            <li>Details you gave: none</li>
          )}
        </ul>
      </section>
      <div className="pass-page__actions">
        <a href={`/c/data/${passId}`} className="button" download>
          Download my data
        </a>
        <Link to={`/c/remove/${passId}`} className="button button--ghost" reloadDocument>
          Delete my card and data
        </Link>
      </div>
      <p className="pass-page__note">
        Deleting removes the card, the details you gave and your notifications; a Google Wallet pass becomes inactive
        and an Apple Wallet pass no longer updates. The business keeps only counts that name nobody (how many stamps it
        gave).
      </p>
      <Link to={`/p/${passId}`} className="button button--ghost">
        Back to my card
      </Link>
    </main>
  )
}

// Only pass.css: the holder's pages stay small for old phones on slow networks (root.tsx).
export const handle = { ownStylesOnly: true }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: passStylesHref }]

export const meta: MetaFunction = () => [{ title: 'Your data — Stampwise' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
