import { type SubmissionResult } from '@conform-to/react'
import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { HolderDetailsFields } from '#app/routes/__holder-details-fields.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { invariantResponse } from '#app/server/http-errors.server.ts'
import { keepHolderDetails, readHolderDetails } from '#app/services/holders/holder-details.server.ts'
import passStylesHref from '#app/styles/pass.css?url'
import { birthdayText, maskedEmail, maskedName, maskedPhone } from '#app/utils/holder-details.ts'
import { getPassHolderDetails, type HolderProfile } from '#models/holder-profile.server.ts'

/**
 * The holder's details for their card (issue 34; DECISIONS.md "Holders who can be found again"), linked from the
 * pass once the card asks: 'Keep your card safe: get it back on a new phone'. Every field is optional; a new e-mail
 * is confirmed by a link before it is used. The pass id in the address is the holder's capability, as on the pass.
 */
async function requireAskingPass(passId: string | undefined) {
  const found = await getPassHolderDetails(passId ?? '')
  invariantResponse(found, 'Card not found')
  return found
}

/** What the holder gave, masked, as [label, value] rows. */
function keptSummary(profile: HolderProfile): [string, string][] {
  const rows: [string, string | null][] = [
    ['Name', profile.name && maskedName(profile.name)],
    [
      'E-mail',
      profile.email && `${maskedEmail(profile.email)}${profile.emailConfirmed ? ' (confirmed)' : ' (not confirmed)'}`,
    ],
    ['Phone', profile.phone && maskedPhone(profile.phone)],
    ['Birthday', profile.birthday && birthdayText(profile.birthday)],
  ]
  return rows.filter((row): row is [string, string] => Boolean(row[1]))
}

export async function loader({ params, request }: LoaderFunctionArgs) {
  const { card, settings, profile } = await requireAskingPass(params.passId)
  // A card that asks nothing (any more) has nothing to show here: back to the card.
  if (!settings || settings.fields.length === 0) throw redirect(`/p/${params.passId}`)
  const saved = new URL(request.url).searchParams.get('saved')
  return data(
    {
      passId: params.passId!,
      card,
      ask: { fields: settings.fields, privacyNote: settings.privacyNote },
      // Masked: the pass's address is not a secret from people nearby; the form changes what it is given.
      kept: profile ? keptSummary(profile) : [],
      emailUnconfirmed: Boolean(profile?.email && !profile.emailConfirmed),
      saved: saved === 'confirm' ? ('confirm' as const) : saved === '1' ? ('saved' as const) : null,
    },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

type ActionData = { result: SubmissionResult<string[]> }

export async function action({ params, request }: ActionFunctionArgs) {
  const { card, settings } = await requireAskingPass(params.passId)
  if (!settings || settings.fields.length === 0) throw redirect(`/p/${params.passId}`, 303)
  const reading = readHolderDetails(await readFormData(request), settings)
  if (reading.status === 'error') return formReply<ActionData>({ result: reading.reply })
  if (!reading.given) return redirect(`/p/${params.passId}`, 303)
  const kept = await keepHolderDetails({
    passId: params.passId!,
    change: reading.change,
    businessName: card.businessName,
  })
  invariantResponse(kept, 'Card not found')
  return redirect(`/p/${params.passId}/details?saved=${kept.emailToConfirm ? 'confirm' : '1'}`, 303)
}

export default function HolderDetailsPage() {
  const { passId, card, ask, kept, emailUnconfirmed, saved } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ActionData | undefined
  return (
    <main className="pass-page">
      <h1>Keep your card safe: get it back on a new phone</h1>
      {saved ? (
        <p className="pass-page__earned" role="status">
          {saved === 'confirm'
            ? 'Saved. We sent you an e-mail: open its link to confirm your address.'
            : 'Saved. Thank you!'}
        </p>
      ) : (
        <p className="pass-page__note">
          {card.businessName || 'The business'} asks for these details. All are optional: your card works without them.
        </p>
      )}
      {emailUnconfirmed && saved !== 'confirm' ? (
        <p className="pass-page__note">Your e-mail is not confirmed yet: open the link we sent to it.</p>
      ) : null}
      {kept.length > 0 ? (
        <section className="pass-page__keep" aria-labelledby="kept-now">
          <h2 id="kept-now">Kept now</h2>
          <ul className="holder-kept">
            {kept.map(([label, value]) => (
              <li key={label}>
                {label}: {value}
              </li>
            ))}
          </ul>
          <p className="pass-page__note">To change one, type it again below; what you leave empty stays as it is.</p>
        </section>
      ) : null}
      <Form method="post" className="pass-page__keep" replace>
        <HolderDetailsFields ask={ask} lastResult={actionData?.result} />
        <button type="submit" className="button button--block">
          Save my details
        </button>
      </Form>
      <Link to={`/p/${passId}`} className="button button--ghost">
        Back to my card
      </Link>
    </main>
  )
}

// Only pass.css: the holder's pages stay small for old phones on slow networks (root.tsx).
export const handle = { ownStylesOnly: true }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: passStylesHref }]

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Your details — ${data.card.businessName || data.card.title || 'Stamp card'}` : 'Card not found' },
]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
