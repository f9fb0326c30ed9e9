import { getInputProps, getTextareaProps, type FieldMetadata } from '@conform-to/react'
import { useNavigation } from '@remix-run/react'
import { type ReactNode } from 'react'

/**
 * Form fields for conform-managed forms: a label, the control, an optional hint and the field's errors. The control
 * carries aria-invalid and aria-describedby (errors, then hint), so the same markup serves with and without JavaScript.
 */
type TextFieldMeta = FieldMetadata<string | undefined, Record<string, unknown>, string[]>

/**
 * Always rendered, with a line's height reserved: an error that appears when a field loses focus must not push the
 * submit button away between the press and the release of a click.
 */
export function FieldErrors({ id, errors }: { id: string; errors?: string[] }) {
  return (
    <div id={id} className="field-error">
      {errors?.map((error) => (
        <p key={error}>{error}</p>
      ))}
    </div>
  )
}

/**
 * What a page shows for a refused submission it has no form for: an unknown `intent`, or a body that is no form
 * (an empty page with a 400 would leave the person guessing).
 */
export const UNREADABLE_SUBMISSION = 'We could not understand that request. Please use the buttons on this page.'

/** Errors about the whole form rather than one field (a limit reached, say). */
export function FormErrors({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors?.length) return null
  return (
    <div id={id} role="alert" className="form-message form-message--error">
      {errors.map((error) => (
        <p key={error}>{error}</p>
      ))}
    </div>
  )
}

function FieldHint({ id, children }: { id: string; children?: ReactNode }) {
  return children ? (
    <p id={id} className="field-hint">
      {children}
    </p>
  ) : null
}

export function InputField({
  meta,
  label,
  hint,
  type = 'text',
  autoComplete,
}: {
  meta: TextFieldMeta
  label: ReactNode
  hint?: ReactNode
  type?: 'text' | 'email' | 'tel' | 'url'
  autoComplete?: string
}) {
  const hintId = hint ? `${meta.id}-hint` : undefined
  const { key, ...inputProps } = getInputProps(meta, { type, ariaDescribedBy: hintId })
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      <FieldHint id={`${meta.id}-hint`}>{hint}</FieldHint>
      <input key={key} {...inputProps} autoComplete={autoComplete} />
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  )
}

export function TextareaField({
  meta,
  label,
  hint,
  rows = 6,
}: {
  meta: TextFieldMeta
  label: ReactNode
  hint?: ReactNode
  rows?: number
}) {
  const hintId = hint ? `${meta.id}-hint` : undefined
  const { key, ...textareaProps } = getTextareaProps(meta, { ariaDescribedBy: hintId })
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      <FieldHint id={`${meta.id}-hint`}>{hint}</FieldHint>
      <textarea key={key} {...textareaProps} rows={rows} />
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  )
}

/** A row of radio buttons, one per option, in a fieldset whose legend names the question. */
export function RadioGroupField({
  meta,
  legend,
  options,
}: {
  meta: TextFieldMeta
  legend: ReactNode
  options: ReadonlyArray<{ value: string; label: string }>
}) {
  return (
    <fieldset
      className="field field--radios"
      aria-invalid={meta.errors ? true : undefined}
      aria-describedby={meta.errors ? meta.errorId : undefined}
    >
      <legend>{legend}</legend>
      <div className="radio-row">
        {options.map((option) => {
          const id = `${meta.id}-${option.value}`
          const { key, ...radioProps } = getInputProps(meta, {
            type: 'radio',
            value: option.value,
            ariaAttributes: false,
          })
          return (
            <label key={`${key ?? ''}${option.value}`} htmlFor={id} className="radio">
              <input {...radioProps} id={id} />
              <span>{option.label}</span>
            </label>
          )
        })}
      </div>
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </fieldset>
  )
}

/** The form's submit button; while the form is being sent (with JavaScript) it says so and ignores further clicks. */
export function SubmitButton({ children, pendingLabel }: { children: ReactNode; pendingLabel: string }) {
  const navigation = useNavigation()
  const pending = navigation.state !== 'idle' && navigation.formMethod?.toUpperCase() === 'POST'
  return (
    <button
      type="submit"
      className="button"
      aria-disabled={pending || undefined}
      onClick={(event) => {
        if (pending) event.preventDefault()
      }}
    >
      {pending ? pendingLabel : children}
    </button>
  )
}
