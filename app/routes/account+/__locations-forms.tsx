import {
  getCollectionProps,
  getFormProps,
  getInputProps,
  useForm,
  type FieldMetadata,
  type SubmissionResult,
} from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form, Link, useNavigation } from '@remix-run/react'
import { type ReactNode } from 'react'
import { FieldErrors, FormErrors, InputField } from '#app/components/forms.tsx'
import {
  ADD_LOCATION_INTENT,
  EDIT_LOCATION_INTENT,
  LOCATION_ADDRESS_MAX,
  LOCATION_NAME_MAX,
  LocationSchema,
  type LocationInput,
  REMOVE_LOCATION_INTENT,
} from '#app/utils/location-schemas.ts'

/**
 * The forms of /account/locations: add, edit (one per location) and remove. Each posts its `intent` (and the
 * location's id) and shows only its own answer, the same with and without JavaScript.
 */
type LastResult = SubmissionResult<string[]> | null | undefined

export type LocationView = {
  id: string
  name: string
  address: string
  latitude: number | null
  longitude: number | null
  staffIds: string[]
}
export type StaffView = { id: string; name: string; email: string }
/** What the form's fields hold (text, as the browser sends it). */
type LocationFormValues = { name: string; address: string; latitude?: string; longitude?: string; staffIds?: string[] }

/** A submit button that says it is pending only while its own form (intent and location) is being sent. */
function LocationButton({
  intent,
  locationId,
  pendingLabel,
  danger,
  children,
}: {
  intent: string
  locationId?: string
  pendingLabel: string
  danger?: boolean
  children: ReactNode
}) {
  const navigation = useNavigation()
  const pending =
    navigation.state !== 'idle' &&
    navigation.formData?.get('intent') === intent &&
    (locationId === undefined || navigation.formData?.get('locationId') === locationId)
  return (
    <button
      type="submit"
      className={danger ? 'button button--danger' : 'button'}
      aria-disabled={pending || undefined}
      onClick={(event) => {
        if (pending) event.preventDefault()
      }}
    >
      {pending ? pendingLabel : children}
    </button>
  )
}

export function LocationForm({
  location,
  staff,
  lastResult,
}: {
  /** The location to edit; none: the add form. */
  location?: LocationView
  staff: StaffView[]
  lastResult: LastResult
}) {
  const intent = location ? EDIT_LOCATION_INTENT : ADD_LOCATION_INTENT
  const [form, fields] = useForm<LocationFormValues, LocationInput>({
    id: location ? `location-${location.id}` : 'location-add',
    lastResult,
    defaultValue: location
      ? {
          name: location.name,
          address: location.address,
          latitude: location.latitude === null ? '' : String(location.latitude),
          longitude: location.longitude === null ? '' : String(location.longitude),
          staffIds: location.staffIds,
        }
      : undefined,
    constraint: getZodConstraint(LocationSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: LocationSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const staffChoices = getCollectionProps(fields.staffIds, {
    type: 'checkbox',
    options: staff.map((member) => member.id),
  })
  return (
    <Form method="POST" className="form locations__form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value={intent} />
      {location ? <input type="hidden" name="locationId" value={location.id} /> : null}
      <FormErrors id={form.errorId} errors={form.errors} />
      <InputField meta={fields.name} label="Name" hint={`Up to ${LOCATION_NAME_MAX} characters, e.g. Baixa.`} />
      <InputField
        meta={fields.address}
        label="Address"
        hint={`Up to ${LOCATION_ADDRESS_MAX} characters.`}
        autoComplete="off"
      />
      <p id={`${form.id}-place-hint`} className="field-hint">
        Latitude and longitude, both or neither: copy them from a map app (a decimal point or comma both work). With
        them, the card comes up on holders’ iPhone lock screens near this location.
      </p>
      <div className="locations__coordinates">
        <CoordinateField meta={fields.latitude} label="Latitude" hintId={`${form.id}-place-hint`} />
        <CoordinateField meta={fields.longitude} label="Longitude" hintId={`${form.id}-place-hint`} />
      </div>
      <fieldset
        className="field locations__staff"
        aria-invalid={fields.staffIds.errors ? true : undefined}
        aria-describedby={fields.staffIds.errors ? fields.staffIds.errorId : `${form.id}-staff-hint`}
      >
        <legend>Staff who work here</legend>
        <p id={`${form.id}-staff-hint`} className="field-hint">
          {staff.length ? (
            'Staff placed at no location may stamp at every location.'
          ) : (
            <>
              You have no staff yet: <Link to="/account/team">invite them on the Team page</Link>.
            </>
          )}
        </p>
        {staff.map((member, index) => {
          const { key, ...props } = staffChoices[index]!
          return (
            <label key={key} htmlFor={props.id} className="locations__staff-choice">
              <input {...props} />
              <span>
                {member.name} <span className="field-hint">{member.email}</span>
              </span>
            </label>
          )
        })}
        <FieldErrors id={fields.staffIds.errorId} errors={fields.staffIds.errors} />
      </fieldset>
      <LocationButton intent={intent} locationId={location?.id} pendingLabel="Saving…">
        {location ? 'Save location' : 'Add location'}
      </LocationButton>
    </Form>
  )
}

function CoordinateField({
  meta,
  label,
  hintId,
}: {
  meta: FieldMetadata<string | undefined, LocationFormValues, string[]>
  label: string
  hintId: string
}) {
  const { key, ...inputProps } = getInputProps(meta, { type: 'text', ariaDescribedBy: hintId })
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      <input key={key} {...inputProps} inputMode="decimal" autoComplete="off" />
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  )
}

/** Removal is soft (models/locations.server.ts): the activity keeps the name, so no confirmation step. */
export function RemoveLocationForm({ location }: { location: LocationView }) {
  return (
    <Form method="POST" className="locations__remove">
      <input type="hidden" name="intent" value={REMOVE_LOCATION_INTENT} />
      <input type="hidden" name="locationId" value={location.id} />
      <LocationButton intent={REMOVE_LOCATION_INTENT} locationId={location.id} pendingLabel="Removing…" danger>
        Remove “{location.name}”
      </LocationButton>
    </Form>
  )
}
