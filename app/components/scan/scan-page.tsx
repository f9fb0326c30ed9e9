import { getFormProps, getInputProps, getSelectProps, type SubmissionResult } from '@conform-to/react'
import { Form } from '@remix-run/react'
import { type ReactNode } from 'react'
import { CardPreview, type CardDesign } from '#app/components/card-preview.tsx'
import { FieldErrors, FormErrors, InputField, SubmitButton } from '#app/components/forms.tsx'
import { progressOf, progressWords, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { StampSchema, type StampIntent } from '#app/utils/stamping.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { ScanCamera } from './scan-camera.tsx'
import { PassResult, type ShownPass } from './scan-pass.tsx'

/**
 * The scan page's body, the same for the owner (/account/{cardId}/scan) and staff (/staff/{cardId}/scan): the stamp
 * form (code, count, where, and the owner's override tick after a rule refused) beside the pass the last action
 * touched. The route's loader and action are app/routes/__scan-page.server.ts.
 */
export type LocationOption = { id: string; name: string }

export type ScanPageData = {
  card: CardDesign & { id: string }
  pass: ShownPass | null
  confirmRedeem: boolean
  locations: LocationOption[]
  /** The location this device uses (remembered, or the only one); null: none chosen yet, or the business has none. */
  locationId: string | null
  mayOverride: boolean
}

export type ScanActionAnswer = {
  intent: StampIntent
  result: SubmissionResult<string[]>
  rule?: string
  refusal?: string
  nextStampAt?: string | null
  /** The refused pass as it stands: the page shows the customer's stamps beside the refusal. */
  refusedPass?: { shortCode: string; stamps: number; stampsRequired: number } | null
}

export function ScanPage({
  data,
  actionData,
  lead,
}: {
  data: ScanPageData
  actionData: ScanActionAnswer | undefined
  lead: ReactNode
}) {
  const { card, pass, confirmRedeem, locations, locationId, mayOverride } = data
  const resultFor = (intent: StampIntent) => (actionData?.intent === intent ? actionData.result : undefined)
  // A rule refused the stamp just sent: the owner may send it again past the rule.
  const refusal = actionData?.intent === 'stamp' ? actionData.refusal : undefined
  const refusedPass = refusal ? actionData?.refusedPass : null
  const refused = refusedPass ? progressOf(schemeOf(refusedPass), refusedPass.stamps) : null
  return (
    <div className="scan-page">
      <h1>Scan</h1>
      <p className="lead">{lead}</p>
      <div className="scan-layout">
        <section className="panel scan-form-panel" aria-labelledby="scan-form-title">
          <h2 id="scan-form-title">Give a stamp</h2>
          <StampForm
            key={pass ? `${pass.passId}-${pass.stamps}-${pass.rewardsRedeemed}` : 'none'}
            lastResult={resultFor('stamp')}
            locations={locations}
            locationId={locationId}
            refusal={refusal}
            mayOverride={mayOverride}
          />
        </section>
        {/* A refusal for another pass than the one shown shows that one's card instead. */}
        {pass && !(refusedPass && refusedPass.shortCode !== pass.shortCode) ? (
          <PassResult
            key={`${pass.passId}-${pass.stamps}-${pass.rewardsRedeemed}`}
            card={card}
            pass={pass}
            locationId={locationId}
            confirmRedeem={confirmRedeem}
            undoResult={resultFor('undo')}
            redeemResult={resultFor('redeem')}
          />
        ) : (
          <>
            {/* Undo or Redeem refused for a pass the page no longer shows: the refusal has no form to show it. */}
            {actionData && actionData.intent !== 'stamp' ? (
              <FormErrors
                id="pass-action-errors"
                errors={Object.values(actionData.result.error ?? {}).flatMap((messages) => messages ?? [])}
              />
            ) : null}
            {refusedPass && refused ? (
              // A refused stamp shows the customer's card as it stands, not an empty one (issue 30, item 4).
              <section className="panel scan-pass" aria-labelledby="scan-pass-title">
                <h2 id="scan-pass-title">
                  Pass <span className="scan-pass__code">{refusedPass.shortCode}</span>
                </h2>
                <CardPreview card={card} size="small" collected={refused.collected} />
                <p className="scan-pass__progress">{`${refusedPass.shortCode}: ${progressWords(refused)}`}</p>
              </section>
            ) : (
              <CardPreview card={card} size="small" />
            )}
          </>
        )}
      </div>
    </div>
  )
}

function StampForm({
  lastResult,
  locations,
  locationId,
  refusal,
  mayOverride,
}: {
  lastResult: SubmissionResult<string[]> | undefined
  locations: LocationOption[]
  locationId: string | null
  /** A stamping rule's refusal of the last stamp (why and when); the owner may then override it. */
  refusal: string | undefined
  mayOverride: boolean
}) {
  const [form, fields] = useSchemaForm(StampSchema, { id: 'stamp-form', lastResult })
  const { key: countKey, ...countProps } = getInputProps(fields.count, { type: 'number' })
  return (
    <Form method="POST" className="form scan-form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="stamp" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <LocationField meta={fields.locationId} locations={locations} locationId={locationId} />
      <ScanCamera formId={form.id} codeInputId={fields.code.id} />
      <InputField meta={fields.code} label="Pass code" hint="8 letters and digits, in any case" autoComplete="off" />
      <div className="field scan-form__count">
        <label htmlFor={fields.count.id}>Stamps to give</label>
        <input key={countKey} {...countProps} inputMode="numeric" placeholder="1" />
        <FieldErrors id={fields.count.errorId} errors={fields.count.errors} />
      </div>
      {refusal ? (
        <div id="stamp-form-refusal" role="alert" className="form-message form-message--error">
          <p>{refusal}</p>
        </div>
      ) : null}
      {refusal && mayOverride ? <OverrideField meta={fields.override} /> : null}
      <SubmitButton pendingLabel="Stamping…">Give stamp</SubmitButton>
    </Form>
  )
}

type Fields = ReturnType<typeof useSchemaForm<typeof StampSchema>>[1]

/**
 * Where the stamp is given: a choice with two or more locations (preselected with the device's), the only one named
 * when there is one (the server uses it), nothing when the business has none.
 */
function LocationField({
  meta,
  locations,
  locationId,
}: {
  meta: Fields['locationId']
  locations: LocationOption[]
  locationId: string | null
}) {
  // Without a choice on the page, a refused location (a crafted or stale one) still says why.
  if (locations.length === 0) return <FieldErrors id={meta.errorId} errors={meta.errors} />
  if (locations.length === 1)
    return (
      <>
        <p className="scan-form__location">
          Location: <strong>{locations[0]!.name}</strong>
        </p>
        <FieldErrors id={meta.errorId} errors={meta.errors} />
      </>
    )
  const { key: _key, defaultValue, ...selectProps } = getSelectProps(meta)
  const chosen = typeof defaultValue === 'string' && defaultValue ? defaultValue : (locationId ?? '')
  return (
    <div className="field scan-form__location">
      <label htmlFor={meta.id}>Location</label>
      <select {...selectProps} defaultValue={chosen}>
        <option value="">Choose where you are</option>
        {locations.map((location) => (
          <option key={location.id} value={location.id}>
            {location.name}
          </option>
        ))}
      </select>
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  )
}

/**
 * The owner's tick past the stamping rule that refused (docs/product/staff-locations-rules.md, "Stamping rules":
 * recorded, and never offered to staff).
 */
function OverrideField({ meta }: { meta: Fields['override'] }) {
  const { key, ...checkboxProps } = getInputProps(meta, { type: 'checkbox' })
  return (
    <div className="field">
      <label className="scan-form__override" htmlFor={meta.id}>
        <input key={key} {...checkboxProps} />
        <span>Override the rule and stamp anyway</span>
      </label>
      <p className="field-hint">The override is recorded in the activity.</p>
    </div>
  )
}
