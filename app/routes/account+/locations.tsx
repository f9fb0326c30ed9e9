import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { FormErrors, UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { addLocation, removeLocation, updateLocation } from '#app/services/accounts/locations.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import locationsStylesHref from '#app/styles/locations.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import {
  ADD_LOCATION_INTENT,
  APPLE_PASS_LOCATIONS_MAX,
  isLocationIntent,
  LOCATION_MESSAGES,
  LocationIdSchema,
  LocationSchema,
  LOCATIONS_MAX,
  REMOVE_LOCATION_INTENT,
  type LocationIntent,
} from '#app/utils/location-schemas.ts'
import { listOwnedLocations, listStaffChoices } from '#models/locations.server.ts'
import { LocationForm, RemoveLocationForm, type LocationView } from './__locations-forms.tsx'

export const handle: AccountHandle = { title: 'Locations', back: 'account' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: locationsStylesHref }]

type ActionData = {
  intent: LocationIntent | null
  locationId: string | null
  result: SubmissionResult<string[]> | null
}

/**
 * The business's locations (docs/product/staff-locations-rules.md): name, address, optional latitude
 * and longitude, and the staff who work there. Stamps, undos and redemptions record where they happened; Apple
 * Wallet passes carry the first APPLE_PASS_LOCATIONS_MAX with a position.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const ownerId = await requireUserId(request)
  const [locations, staff] = await Promise.all([listOwnedLocations(ownerId), listStaffChoices(ownerId)])
  // The same choice as the pass's (models/apple-pass.server.ts): the oldest located ones.
  const onPasses = new Set(
    locations
      .filter((location) => location.latitude !== null)
      .slice(0, APPLE_PASS_LOCATIONS_MAX)
      .map((location) => location.id),
  )
  return {
    locations: locations.map((location) => ({ ...location, onPasses: onPasses.has(location.id) })),
    staff,
    max: LOCATIONS_MAX,
  }
}

export async function action({ request }: ActionFunctionArgs) {
  const ownerId = await requireUserId(request)
  const formData = await readFormData(request)
  const intent = formData.get('intent')
  if (!isLocationIntent(intent)) return formReply<ActionData>({ intent: null, locationId: null, result: null })
  const back = (message: string) => redirectWithToast('/account/locations', { message })

  // Edit and remove name one of the owner's locations: anything else is the same 404 as another owner's.
  let locationId: string | null = null
  if (intent !== ADD_LOCATION_INTENT) {
    const named = LocationIdSchema.safeParse({ locationId: formData.get('locationId') ?? undefined })
    if (!named.success) throw notFound(LOCATION_MESSAGES.notFound)
    locationId = named.data.locationId
  }
  if (intent === REMOVE_LOCATION_INTENT) {
    const name = await removeLocation(ownerId, locationId!)
    if (name === null) throw notFound(LOCATION_MESSAGES.notFound)
    return back(`“${name}” removed. Stamps made there keep its name.`)
  }

  const staff = new Set((await listStaffChoices(ownerId)).map((member) => member.id))
  const schema = LocationSchema.superRefine((value, context) => {
    if (value.staffIds?.some((id) => !staff.has(id)))
      context.addIssue({ code: 'custom', path: ['staffIds'], message: LOCATION_MESSAGES.staff })
  })
  const submission = parseWithZod(formData, { schema })
  const refuse = (result: SubmissionResult<string[]>, status = 400) =>
    formReply<ActionData>({ intent, locationId, result }, status)
  if (submission.status !== 'success') return refuse(submission.reply())
  const { name, address, latitude = null, longitude = null, staffIds = [] } = submission.value
  const fields = { name, address, latitude, longitude, staffIds: [...new Set(staffIds)] }

  if (intent === ADD_LOCATION_INTENT) {
    const added = await addLocation(ownerId, fields, LOCATIONS_MAX)
    if (added === 'limit') return refuse(submission.reply({ formErrors: [LOCATION_MESSAGES.limit] }), 409)
    return back(`“${name}” added.`)
  }
  if (!(await updateLocation(ownerId, locationId!, fields))) throw notFound(LOCATION_MESSAGES.notFound)
  return back(`“${name}” saved.`)
}

export default function Locations() {
  const { locations, staff, max } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ActionData | undefined
  // Each form shows only the answer to its own submission.
  const resultFor = (intent: LocationIntent, locationId: string | null = null) =>
    actionData?.intent === intent && actionData.locationId === locationId ? actionData.result : undefined
  const staffNames = (location: LocationView) =>
    staff.filter((member) => location.staffIds.includes(member.id)).map((member) => member.name)
  return (
    <div className="locations">
      <h1>Locations</h1>
      <p className="lead">
        Where you stamp cards. Every stamp, undo and redemption records where it happened, and staff stamp at the
        locations they work at.
      </p>
      {actionData && actionData.intent === null ? (
        <FormErrors id="locations-errors" errors={[UNREADABLE_SUBMISSION]} />
      ) : null}
      <p>
        {locations.length === 0
          ? 'No locations yet: stamps record no location.'
          : `${locations.length} of ${max} locations.`}
      </p>
      {locations.map((location) => {
        const editResult = resultFor('edit', location.id)
        const names = staffNames(location)
        return (
          <section
            key={location.id}
            className="panel locations__item"
            aria-labelledby={`location-${location.id}-title`}
          >
            <h2 id={`location-${location.id}-title`}>{location.name}</h2>
            <p className="locations__address">{location.address}</p>
            <p className="field-hint">
              {location.latitude === null
                ? 'No latitude and longitude: not on Apple Wallet passes.'
                : `${location.latitude}, ${location.longitude}: ` +
                  (location.onPasses
                    ? 'on Apple Wallet passes.'
                    : `not on Apple Wallet passes (they carry the first ${APPLE_PASS_LOCATIONS_MAX}).`)}
            </p>
            <p>Staff: {names.length ? names.join(', ') : 'none placed here'}</p>
            <details className="locations__edit" open={editResult ? true : undefined}>
              <summary>Edit “{location.name}”</summary>
              <LocationForm key={JSON.stringify(location)} location={location} staff={staff} lastResult={editResult} />
            </details>
            <RemoveLocationForm location={location} />
          </section>
        )
      })}
      <section className="panel" aria-labelledby="location-add-title">
        <h2 id="location-add-title">Add a location</h2>
        {locations.length >= max ? (
          <p role="status">{LOCATION_MESSAGES.limit}</p>
        ) : (
          <LocationForm key={locations.length} staff={staff} lastResult={resultFor('add')} />
        )}
      </section>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Locations — Stampwise' }]
