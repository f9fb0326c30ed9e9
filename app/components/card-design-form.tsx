import { getFormProps, getInputProps, useForm, type FieldMetadata, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form, useNavigation } from '@remix-run/react'
import { useState, type FormEvent, type ReactNode } from 'react'
import { CardPreview, type CardDesign } from '#app/components/card-preview.tsx'
import { ContrastWarning } from '#app/components/contrast-warning.tsx'
import { FieldErrors, FormErrors, InputField, TextareaField } from '#app/components/forms.tsx'
import { StampIconPath } from '#app/components/stamp-icons.tsx'
import { progressOf, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { CARD_DESIGN_FIELDS, pickFields } from '#app/utils/card-design-fields.ts'
import { CardDesignSchema, CardEditSchema } from '#app/utils/card-design-schema.ts'
import { LOGO_ACCEPT } from '#app/utils/logo-image.ts'
import { STAMP_ICONS } from '#app/utils/stamp-icon-names.ts'

/**
 * The card designer: the owner's design step (/main) and an admin's card edit
 * (/admin/users/{userId}/cards/{cardId}/edit)
 * use this one form and its preview. Given `reward`, it also asks for the reward and its terms (the admin's page
 * edits both in one form; the owner's reward step uses `RewardFields` on its own).
 */
export type PreviewDesign = CardDesign & { logoUrl?: string | null }
type FieldMeta = FieldMetadata<string | undefined, Record<string, unknown>, string[]>

/**
 * The values the preview follows: the form's as the owner types (JavaScript only), or those of a refused submit,
 * which the server renders back without JavaScript (else the preview and its contrast warning would show the saved
 * design beside the submitted fields).
 */
function readDesign(values: { get(name: string): unknown }, previous: PreviewDesign): PreviewDesign {
  const text = (name: string, fallback: string) => {
    const value = values.get(name)
    return typeof value === 'string' ? value : fallback
  }
  const stamps = Number(text('stampsRequired', String(previous.stampsRequired)))
  return {
    ...previous,
    businessName: text('businessName', previous.businessName),
    title: text('title', previous.title),
    stampsRequired: Number.isInteger(stamps) && stamps >= 1 && stamps <= 20 ? stamps : previous.stampsRequired,
    backgroundColor: text('backgroundColor', previous.backgroundColor),
    textColor: text('textColor', previous.textColor),
    stampIcon: text('stampIcon', previous.stampIcon),
    reward: previous.reward === undefined ? undefined : text('reward', previous.reward),
  }
}

/** What a full card earns and its terms: the owner's reward step and the admin's card edit. */
export function RewardFields({ reward, terms }: { reward: FieldMeta; terms: FieldMeta }) {
  return (
    <>
      <InputField meta={reward} label="Reward" />
      <TextareaField
        meta={terms}
        label="Terms (optional)"
        hint="For example: one stamp per visit, not exchangeable for cash. Up to 600 characters."
        rows={4}
      />
    </>
  )
}

export function DesignForm({
  design,
  reward,
  lastResult,
  submitLabel = 'Save and continue',
  children,
}: {
  design: PreviewDesign
  reward?: { reward: string; terms: string }
  lastResult: SubmissionResult<string[]> | undefined
  submitLabel?: string
  /** More buttons or links beside the submit button. */
  children?: ReactNode
}) {
  const [preview, setPreview] = useState<PreviewDesign>(() => {
    const saved = reward ? { ...design, reward: reward.reward } : design
    const submitted = lastResult?.initialValue
    return submitted ? readDesign({ get: (name) => submitted[name] }, saved) : saved
  })
  const navigation = useNavigation()
  // With the reward the form is CardEditSchema; without, CardDesignSchema (the same fields but the reward's).
  const schema = (reward ? CardEditSchema : CardDesignSchema) as typeof CardEditSchema
  const [form, fields] = useForm({
    id: 'card-design',
    lastResult,
    defaultValue: {
      ...pickFields(design, CARD_DESIGN_FIELDS),
      stampsRequired: String(design.stampsRequired),
      ...reward,
    },
    constraint: getZodConstraint(schema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const follow = (event: FormEvent<HTMLFormElement>) => {
    const target = event.target as HTMLInputElement
    if (target.name === 'logo') {
      const file = target.files?.[0]
      setPreview((current) => ({ ...current, logoUrl: file ? URL.createObjectURL(file) : design.logoUrl }))
      return
    }
    const values = new FormData(event.currentTarget)
    setPreview((current) => readDesign(values, current))
  }
  // The logo is checked on the server only (by its content): its errors come back with the form's.
  const logoErrors = form.allErrors.logo

  return (
    <div className="designer">
      <Form
        method="POST"
        encType="multipart/form-data"
        className="form designer__form"
        {...getFormProps(form)}
        onChange={follow}
        onInput={follow}
      >
        <FormErrors id={form.errorId} errors={form.errors} />
        <InputField meta={fields.businessName} label="Business name" autoComplete="organization" />
        <InputField meta={fields.title} label="Card title" hint="For example ‘Coffee card’ or ‘Haircut club’" />
        <div className="field">
          <label htmlFor="card-design-logo">Logo (optional)</label>
          <p id="card-design-logo-hint" className="field-hint">
            PNG, JPEG or WebP, up to 2 MB. It is cropped to a square.
          </p>
          <input
            id="card-design-logo"
            name="logo"
            type="file"
            accept={LOGO_ACCEPT}
            aria-describedby={`card-design-logo-hint ${'card-design-logo-error'}`}
            aria-invalid={logoErrors ? true : undefined}
          />
          {design.logoUrl ? (
            <label className="checkbox">
              <input type="checkbox" name="removeLogo" /> Remove the logo
            </label>
          ) : null}
          <FieldErrors id={'card-design-logo-error'} errors={logoErrors} />
        </div>
        <div className="designer__colors">
          <ColorField meta={fields.backgroundColor} label="Background colour" />
          <ColorField meta={fields.textColor} label="Text colour" />
        </div>
        <fieldset
          className="field stamp-icons"
          aria-describedby={fields.stampIcon.errors ? fields.stampIcon.errorId : undefined}
        >
          <legend>Stamp icon</legend>
          <div className="stamp-icons__options">
            {STAMP_ICONS.map((icon) => {
              const { key, ...radioProps } = getInputProps(fields.stampIcon, {
                type: 'radio',
                value: icon,
                ariaAttributes: false,
              })
              return (
                <label key={`${key ?? ''}${icon}`} className="stamp-icons__option">
                  <input {...radioProps} id={`${fields.stampIcon.id}-${icon}`} />
                  <svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true">
                    <StampIconPath icon={icon} />
                  </svg>
                  <span className="stamp-icons__name">{icon}</span>
                </label>
              )
            })}
          </div>
          <FieldErrors id={fields.stampIcon.errorId} errors={fields.stampIcon.errors} />
        </fieldset>
        <div className="field">
          <label htmlFor={fields.stampsRequired.id}>Stamps needed for the reward</label>
          <p id={`${fields.stampsRequired.id}-hint`} className="field-hint">
            From 1 to 20
          </p>
          <StampsInput meta={fields.stampsRequired} />
          <FieldErrors id={fields.stampsRequired.errorId} errors={fields.stampsRequired.errors} />
        </div>
        {reward ? <RewardFields reward={fields.reward} terms={fields.terms} /> : null}
        <div className="designer__actions">
          {children}
          <button type="submit" className="button" disabled={navigation.state === 'submitting'}>
            {submitLabel}
          </button>
        </div>
      </Form>
      <aside className="designer__preview" aria-label="Preview">
        <h2>Preview</h2>
        <CardPreview card={preview} collected={progressOf(schemeOf(preview), 2).collected} />
        <ContrastWarning backgroundColor={preview.backgroundColor} textColor={preview.textColor} />
      </aside>
    </div>
  )
}

type InputMeta = Parameters<typeof getInputProps>[0]

function ColorField({ meta, label }: { meta: InputMeta; label: string }) {
  const { key, ...inputProps } = getInputProps(meta, { type: 'color' })
  return (
    <div className="field field--color">
      <label htmlFor={meta.id}>{label}</label>
      <input key={key} {...inputProps} />
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  )
}

function StampsInput({ meta }: { meta: InputMeta }) {
  const { key, ...inputProps } = getInputProps(meta, { type: 'number', ariaDescribedBy: `${meta.id}-hint` })
  return <input key={key} {...inputProps} inputMode="numeric" />
}
