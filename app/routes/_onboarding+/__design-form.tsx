import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form, Link, useNavigation } from '@remix-run/react'
import { useState, type FormEvent } from 'react'
import { CardPreview, type CardDesign } from '#app/components/card-preview.tsx'
import { FieldErrors, FormErrors, InputField } from '#app/components/forms.tsx'
import { STAMP_ICONS, StampIconPath } from '#app/components/stamp-icons.tsx'
import { CardDesignSchema } from '#app/utils/card-design-schema.ts'
import { CONTRAST_WARNING, isHardToRead } from '#app/utils/contrast.ts'
import { LOGO_ACCEPT } from '#app/utils/logo-image.ts'

/** The plan's card limit reached: its message and the way to a bigger plan. */
export function CardLimitNotice({ message, ended, inline = false }: { message: string; ended: boolean; inline?: boolean }) {
  const links = (
    <p>
      <Link to="/account/tariffs" className="button">
        View plans
      </Link>{' '}
      <Link to={ended ? '/account/limits_trial' : '/account/limits'}>What your plan includes</Link>
    </p>
  )
  if (inline) {
    return (
      <div className="form-message form-message--error" role="alert">
        <p>{message}</p>
        {links}
      </div>
    )
  }
  return (
    <>
      <h1>You have reached your plan's card limit</h1>
      <p className="lead" role="alert">
        {message}
      </p>
      {links}
    </>
  )
}

type PreviewDesign = CardDesign & { logoUrl?: string | null }

/** The values the preview follows as the owner types (JavaScript only; without it the server renders the saved design). */
function readDesign(form: HTMLFormElement, previous: PreviewDesign): PreviewDesign {
  const values = new FormData(form)
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
  }
}

export function DesignForm({ design, lastResult }: { design: PreviewDesign; lastResult: SubmissionResult<string[]> | undefined }) {
  const [preview, setPreview] = useState<PreviewDesign>(design)
  const navigation = useNavigation()
  const [form, fields] = useForm({
    id: 'card-design',
    lastResult,
    defaultValue: {
      businessName: design.businessName,
      title: design.title,
      stampsRequired: String(design.stampsRequired),
      backgroundColor: design.backgroundColor,
      textColor: design.textColor,
      stampIcon: design.stampIcon,
    },
    constraint: getZodConstraint(CardDesignSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: CardDesignSchema }),
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
    const formElement = event.currentTarget
    setPreview((current) => readDesign(formElement, current))
  }
  // The logo is checked on the server only (by its content): its errors come back with the form's.
  const logoErrors = form.allErrors.logo
  const hardToRead = isHardToRead(preview.backgroundColor, preview.textColor)

  return (
    <div className="designer">
      <Form method="POST" encType="multipart/form-data" className="form designer__form" {...getFormProps(form)} onChange={follow} onInput={follow}>
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
        <fieldset className="field stamp-icons" aria-describedby={fields.stampIcon.errors ? fields.stampIcon.errorId : undefined}>
          <legend>Stamp icon</legend>
          <div className="stamp-icons__options">
            {STAMP_ICONS.map((icon) => {
              const { key, ...radioProps } = getInputProps(fields.stampIcon, { type: 'radio', value: icon, ariaAttributes: false })
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
        <button type="submit" className="button" disabled={navigation.state === 'submitting'}>
          Save and continue
        </button>
      </Form>
      <aside className="designer__preview" aria-label="Preview">
        <h2>Preview</h2>
        <CardPreview card={preview} collected={Math.min(2, preview.stampsRequired)} />
        {hardToRead ? (
          <p className="contrast-warning" role="status">
            {CONTRAST_WARNING}
          </p>
        ) : null}
      </aside>
    </div>
  )
}

type ColorMeta = Parameters<typeof getInputProps>[0]

function ColorField({ meta, label }: { meta: ColorMeta; label: string }) {
  const { key, ...inputProps } = getInputProps(meta, { type: 'color' })
  return (
    <div className="field field--color">
      <label htmlFor={meta.id}>{label}</label>
      <input key={key} {...inputProps} />
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  )
}

function StampsInput({ meta }: { meta: ColorMeta }) {
  const { key, ...inputProps } = getInputProps(meta, { type: 'number', ariaDescribedBy: `${meta.id}-hint` })
  return <input key={key} {...inputProps} inputMode="numeric" />
}
