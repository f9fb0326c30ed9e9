import { getInputProps, type FieldMetadata } from '@conform-to/react'
import { useState, type ReactNode } from 'react'
import { FieldErrors } from '#app/components/forms.tsx'
import { PASSWORD_SPECIALS } from '#app/utils/auth-schemas.ts'

/**
 * Pieces the auth forms share: password fields with a show/hide toggle and the form-level message.
 * See docs/decisions/004-password-toggle.md for how the toggle works without JavaScript.
 */
export const SHOW_PASSWORD_FIELD = 'showPassword'
export const HIDDEN_FIELDS = ['password', 'confirmPassword']
export const NEW_PASSWORD_HINT = `At least 6 characters, with an uppercase letter, a number and one of ${PASSWORD_SPECIALS}`

type TextFieldMeta = FieldMetadata<string | undefined, Record<string, unknown>, string[]>
type LastResult = { initialValue?: Record<string, unknown> | null } | undefined

/** Starts from what the server echoed, so a form that came back with errors keeps the visitor's choice. */
export function useShowPassword(lastResult: LastResult) {
  const echoed = lastResult?.initialValue?.[SHOW_PASSWORD_FIELD] === 'on'
  const [shown, setShown] = useState(echoed)
  return { shown, setShown }
}

export function PasswordField({
  meta,
  label,
  shown,
  autoComplete,
  hint,
}: {
  meta: TextFieldMeta
  label: string
  shown: boolean
  autoComplete: 'current-password' | 'new-password'
  hint?: string
}) {
  const hintId = hint ? `${meta.id}-hint` : undefined
  const { key, ...inputProps } = getInputProps(meta, { type: shown ? 'text' : 'password', ariaDescribedBy: hintId })
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      <input key={key} {...inputProps} autoComplete={autoComplete} autoCapitalize="none" spellCheck={false} />
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  )
}

/**
 * A new password and its confirmation, under the sign-up policy (its hint under the first). Sign-up, the reset link,
 * the staff invitation, the profile and the staff password page all ask for them; only the labels differ.
 */
export function NewPasswordFields({
  password,
  confirmPassword,
  shown,
  labels = ['New password', 'Confirm new password'],
}: {
  password: TextFieldMeta
  confirmPassword: TextFieldMeta
  shown: boolean
  labels?: readonly [string, string]
}) {
  return (
    <>
      <PasswordField
        meta={password}
        label={labels[0]}
        shown={shown}
        autoComplete="new-password"
        hint={NEW_PASSWORD_HINT}
      />
      <PasswordField meta={confirmPassword} label={labels[1]} shown={shown} autoComplete="new-password" />
    </>
  )
}

export function ShowPasswordToggle({ shown, onToggle }: { shown: boolean; onToggle: (shown: boolean) => void }) {
  return (
    <label className="password-toggle">
      <input
        type="checkbox"
        name={SHOW_PASSWORD_FIELD}
        value="on"
        checked={shown}
        onChange={(event) => onToggle(event.currentTarget.checked)}
      />
      <span>Show password</span>
    </label>
  )
}

/** Errors of the whole form (wrong credentials, a rate limit), announced to screen readers. */
export function FormErrors({ id, errors, children }: { id: string; errors?: string[]; children?: ReactNode }) {
  if (!errors?.length) return null
  return (
    <div id={id} role="alert" className="form-message form-message--error">
      {errors.map((error) => (
        <p key={error}>{error}</p>
      ))}
      {children}
    </div>
  )
}
