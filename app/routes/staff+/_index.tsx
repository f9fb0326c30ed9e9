import { getFormProps, getSelectProps, type SubmissionResult } from '@conform-to/react'
import { type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData, useOutletContext, type MetaFunction } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FieldErrors, FormErrors } from '#app/components/forms.tsx'
import { IntentButton } from '#app/components/intent-button.tsx'
import { requireStaff } from '#app/services/auth/session.server.ts'
import { locationChoice } from '#app/services/cards/scan-location.server.ts'
import { LocationChoiceSchema } from '#app/utils/stamping.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { listOwnerCardSummaries } from '#models/card.server.ts'
import { type LocationActionData } from './_layout.tsx'

/**
 * The staff member's start (/staff): the cards of their employer they may stamp (every card the owner's scan page
 * takes), each opening its scan page, and where this device stamps when the member works at several locations.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const staff = await requireStaff(request)
  const [cards, { locations, current }] = await Promise.all([
    listOwnerCardSummaries(staff.ownerId),
    locationChoice(request, staff),
  ])
  return { cards, locations, locationId: current?.id ?? null }
}

export default function StaffHome() {
  const { cards, locations, locationId } = useLoaderData<typeof loader>()
  // The form posts to the layout (/staff), whose answer comes through the outlet's context.
  const actionData = useOutletContext<LocationActionData | undefined>()
  return (
    <div className="staff-home">
      <h1>Cards to stamp</h1>
      {cards.length === 0 ? (
        <p>There is no card to stamp yet: the owner has not made one.</p>
      ) : (
        <ul className="staff-cards">
          {cards.map((card) => (
            <li key={card.id} className="panel">
              <Link to={`/staff/${card.id}/scan`}>
                <strong>{card.title || 'Stamp card'}</strong>
                {card.businessName ? <span>{card.businessName}</span> : null}
                <span className="button">Scan</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      {/* A location form this page does not show (one location or none): its refusal still needs saying. */}
      {locations.length < 2 && actionData ? (
        <FormErrors
          id="location-errors"
          errors={Object.values(actionData.result.error ?? {}).flatMap((messages) => messages ?? [])}
        />
      ) : null}
      {locations.length > 1 ? (
        <section className="panel" aria-labelledby="staff-location-title">
          <h2 id="staff-location-title">Where are you?</h2>
          <p className="field-hint">This device remembers it for every stamp, undo and redemption.</p>
          <LocationForm
            key={locationId ?? 'none'}
            locations={locations}
            locationId={locationId}
            lastResult={actionData?.result}
          />
        </section>
      ) : null}
    </div>
  )
}

function LocationForm({
  locations,
  locationId,
  lastResult,
}: {
  locations: { id: string; name: string }[]
  locationId: string | null
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const [form, fields] = useSchemaForm(LocationChoiceSchema, { id: 'location-form', lastResult })
  const { key: _key, defaultValue, ...selectProps } = getSelectProps(fields.locationId)
  const chosen = typeof defaultValue === 'string' && defaultValue ? defaultValue : (locationId ?? '')
  return (
    <Form method="POST" action="/staff" className="form staff-location-form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="location" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <div className="field">
        <label htmlFor={fields.locationId.id}>Location</label>
        <select {...selectProps} defaultValue={chosen}>
          <option value="">Choose where you are</option>
          {locations.map((location) => (
            <option key={location.id} value={location.id}>
              {location.name}
            </option>
          ))}
        </select>
        <FieldErrors id={fields.locationId.errorId} errors={fields.locationId.errors} />
      </div>
      <IntentButton intent="location" pendingLabel="Saving…">
        Use this location
      </IntentButton>
    </Form>
  )
}

export const meta: MetaFunction = () => [{ title: 'Cards to stamp — Stampwise' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary as="div" />
}
