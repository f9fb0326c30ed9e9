import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { CardPreview } from '#app/components/card-preview.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { HoneypotField, isHoneypotFilled } from '#app/components/honeypot.tsx'
import { HolderDetailsFields } from '#app/routes/__holder-details-fields.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { invariantResponse } from '#app/server/http-errors.server.ts'
import { tooManyRequests, unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { carriesHolderFields, readHolderDetails } from '#app/services/holders/holder-details.server.ts'
import { findRememberedPass, joinCard } from '#app/services/passes/pass-join.server.ts'
import cardPreviewStylesHref from '#app/styles/card-preview.css?url'
import passStylesHref from '#app/styles/pass.css?url'
import { CARD_CONTENT_FIELDS, pickFields } from '#app/utils/card-design-fields.ts'
import { cardLogoUrl } from '#app/utils/card-logo.ts'
import { settingsOf } from '#models/holder-profile.server.ts'
import { getJoinableCard, type JoinableCard } from '#models/pass.server.ts'

/** A card's public join page: the card and one button. A device that already holds a pass goes straight to it. */
async function requireJoinableCard(slug: string | undefined) {
  const card = await getJoinableCard(slug ?? '')
  invariantResponse(card, 'This card is no longer available')
  return card
}

/** The card's question at joining (issue 34): optional fields under 'Get my card', when the card asks then. */
function askAtJoining(card: JoinableCard) {
  const settings = settingsOf(card.holderDetails)
  return settings && settings.when === 'joining' && settings.fields.length > 0 ? settings : null
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const card = await requireJoinableCard(params.slug)
  const remembered = await findRememberedPass(request, card)
  if (remembered) return redirect(`/p/${remembered}`)
  const settings = askAtJoining(card)
  return data(
    {
      card: { ...pickFields(card, CARD_CONTENT_FIELDS), logoUrl: cardLogoUrl(card) },
      ask: settings ? { fields: settings.fields, privacyNote: settings.privacyNote } : null,
    },
    { headers: { 'Cache-Control': 'private, no-cache' } },
  )
}

export async function action({ request, params }: ActionFunctionArgs) {
  const card = await requireJoinableCard(params.slug)
  const formData = await readFormData(request)
  if (isHoneypotFilled(formData)) return redirect(`/c/${card.slug}`, 303)
  // Details typed under the button are checked before the card is made: a mistyped e-mail is shown, not lost.
  const settings = askAtJoining(card)
  const reading =
    settings && carriesHolderFields(formData, settings.fields) ? readHolderDetails(formData, settings) : null
  if (reading?.status === 'error') return formReply({ result: reading.reply })
  const details = reading?.status === 'success' && reading.given ? reading.change : undefined
  const joined = await unlessRateLimited(joinCard(request, card, details))
  // The message only, without Retry-After, as this page has always answered.
  if (joined instanceof RateLimitedError) return data({ error: joined.message }, tooManyRequests(joined.message))
  return joined
}

export default function JoinCard() {
  const { card, ask } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const lastResult = actionData && 'result' in actionData ? actionData.result : undefined
  return (
    <main className="pass-page">
      <h1 className="pass-page__heading">Join {card.businessName || 'this'}’s stamp card</h1>
      <CardPreview card={card} />
      {/* A full page load: the pass page's head (manifest) and its service worker script must run. */}
      <Form method="post" reloadDocument className="pass-page__join">
        <HoneypotField />
        {actionData && 'error' in actionData ? (
          <p className="pass-page__error" role="alert">
            {actionData.error}
          </p>
        ) : null}
        <button type="submit" className="button button--block">
          Get my card
        </button>
        {ask ? <HolderDetailsFields ask={ask} lastResult={lastResult} idPrefix="join" /> : null}
      </Form>
      <p className="pass-page__note">
        {ask
          ? 'Nothing to install: your card lives on this phone. The details above are optional.'
          : 'Nothing to install and nothing to fill in: your card lives on this phone.'}
      </p>
      {card.terms ? <p className="pass-page__terms">{card.terms}</p> : null}
    </main>
  )
}

// Only pass.css: the holder's pages stay small for old phones on slow networks (root.tsx).
export const handle = { ownStylesOnly: true }

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: cardPreviewStylesHref },
  { rel: 'stylesheet', href: passStylesHref },
]

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.card.title || 'Stamp card'} — ${data.card.businessName}` : 'Card not available — Stampwise' },
]

// A card that is gone has its own words on the holder's page; any other error goes on to the root's page.
export function ErrorBoundary() {
  return <GeneralErrorBoundary statusHandlers={{ 404: () => <Unavailable /> }} passOnOthers />
}

function Unavailable() {
  return (
    <main className="pass-page pass-page--missing">
      <h1>This card is no longer available</h1>
      <p>
        The business may have ended this card, or the address may be mistyped. Ask at the counter for the current one.
      </p>
      <Link to="/" className="button">
        Go to Stampwise
      </Link>
    </main>
  )
}
