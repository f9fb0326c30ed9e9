import { getFormProps, getInputProps, type SubmissionResult } from '@conform-to/react'
import { Form } from '@remix-run/react'
import { NewPasswordFields, PasswordField } from '#app/components/auth-form.tsx'
import { FieldErrors, FormErrors, InputField } from '#app/components/forms.tsx'
import { IntentButton } from '#app/components/intent-button.tsx'
import { LOGO_ACCEPT } from '#app/utils/logo-image.ts'
import {
  changeEmailSchema,
  changePasswordSchema,
  deleteProfileSchema,
  LogoSchema,
  TimeZoneSchema,
} from '#app/utils/profile-schemas.ts'
import { singleSelectProps } from '#app/utils/select-props.ts'
import { type TimeZoneGroup } from '#app/utils/time-zone-choice.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'

/** The forms of /account/profile; each posts its own `intent` and shows only its own answer. */
type LastResult = SubmissionResult<string[]> | null | undefined

export function LogoForm({ logoUrl, lastResult }: { logoUrl: string | null; lastResult: LastResult }) {
  const [form, fields] = useSchemaForm(LogoSchema, { id: 'logo-form', lastResult })
  const hintId = `${fields.logo.id}-hint`
  const { key, ...fileProps } = getInputProps(fields.logo, { type: 'file', ariaDescribedBy: hintId })
  return (
    <div className="profile-logo">
      <img
        className="profile-logo__preview"
        src={logoUrl ?? '/images/default-profile.svg'}
        alt={logoUrl ? 'Your logo' : 'No logo yet'}
        width={96}
        height={96}
      />
      <div className="profile-logo__forms">
        <Form method="POST" encType="multipart/form-data" className="form" {...getFormProps(form)}>
          <input type="hidden" name="intent" value="logo" />
          <FormErrors id={form.errorId} errors={form.errors} />
          <div className="field">
            <label htmlFor={fields.logo.id}>Logo image</label>
            <p id={hintId} className="field-hint">
              PNG, JPEG or WebP, up to 2 MB. It is cropped to a square from the centre.
            </p>
            <input key={key} {...fileProps} accept={LOGO_ACCEPT} />
            <FieldErrors id={fields.logo.errorId} errors={fields.logo.errors} />
          </div>
          <IntentButton intent="logo" pendingLabel="Uploading…">
            Upload logo
          </IntentButton>
        </Form>
        {logoUrl ? (
          <Form method="POST">
            <input type="hidden" name="intent" value="remove-logo" />
            <button type="submit" className="button button--ghost">
              Remove logo
            </button>
          </Form>
        ) : null}
      </div>
    </div>
  )
}

export function EmailForm({
  email,
  hasPassword,
  lastResult,
}: {
  email: string
  hasPassword: boolean
  lastResult: LastResult
}) {
  const [form, fields] = useSchemaForm(changeEmailSchema(hasPassword), { id: 'email-form', lastResult })
  return (
    <Form method="POST" className="form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="email" />
      <p>
        Your email address is <strong>{email}</strong>. We send a link to the new address; it changes when you open it.
      </p>
      <FormErrors id={form.errorId} errors={form.errors} />
      <InputField meta={fields.email} label="New email address" type="email" autoComplete="email" />
      {hasPassword ? (
        <PasswordField meta={fields.password} label="Your password" shown={false} autoComplete="current-password" />
      ) : null}
      <IntentButton intent="email" pendingLabel="Sending…">
        Change email
      </IntentButton>
    </Form>
  )
}

export function PasswordForm({ hasPassword, lastResult }: { hasPassword: boolean; lastResult: LastResult }) {
  const [form, fields] = useSchemaForm(changePasswordSchema(hasPassword), { id: 'password-form', lastResult })
  return (
    <Form method="POST" className="form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="password" />
      {hasPassword ? null : <p>You sign in with Google or Apple. A password lets you sign in with your email too.</p>}
      <FormErrors id={form.errorId} errors={form.errors} />
      {hasPassword ? (
        <PasswordField
          meta={fields.currentPassword}
          label="Current password"
          shown={false}
          autoComplete="current-password"
        />
      ) : null}
      <NewPasswordFields password={fields.password} confirmPassword={fields.confirmPassword} shown={false} />
      <IntentButton intent="password" pendingLabel="Saving…">
        {hasPassword ? 'Change password' : 'Set password'}
      </IntentButton>
    </Form>
  )
}

export function TimeZoneForm({
  timeZone,
  groups,
  lastResult,
}: {
  timeZone: string
  groups: TimeZoneGroup[]
  lastResult: LastResult
}) {
  const [form, fields] = useSchemaForm(TimeZoneSchema, { id: 'time-zone-form', lastResult })
  const hintId = `${fields.timeZone.id}-hint`
  const { defaultValue: submitted, ...selectProps } = singleSelectProps(fields.timeZone)
  // A refused value (not on the list) would select the first option: the stored zone is shown instead.
  const offered = groups.some((group) => group.zones.some((zone) => zone.value === submitted))
  return (
    <Form method="POST" className="form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="time-zone" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <div className="field">
        <label htmlFor={fields.timeZone.id}>Time zone</label>
        <p id={hintId} className="field-hint">
          Days, charts and “this month” on your pages follow this time zone. Monthly message quotas stay in UTC months.
        </p>
        <select
          key={fields.timeZone.key}
          {...selectProps}
          defaultValue={offered ? submitted : timeZone}
          aria-describedby={fields.timeZone.errors ? `${fields.timeZone.errorId} ${hintId}` : hintId}
        >
          {groups.map((group) => (
            <optgroup key={group.region} label={group.region}>
              {group.zones.map((zone) => (
                <option key={zone.value} value={zone.value}>
                  {zone.label}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
        <FieldErrors id={fields.timeZone.errorId} errors={fields.timeZone.errors} />
      </div>
      <IntentButton intent="time-zone" pendingLabel="Saving…">
        Save time zone
      </IntentButton>
    </Form>
  )
}

export function DeleteProfileForm({ email, lastResult }: { email: string; lastResult: LastResult }) {
  const [form, fields] = useSchemaForm(deleteProfileSchema(email), { id: 'delete-form', lastResult })
  return (
    <Form method="POST" className="form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="delete" />
      <p>
        Deleting your profile removes your cards, their holders' stamps and your plan for good. Holders' cards stop
        working. This cannot be undone.
      </p>
      <FormErrors id={form.errorId} errors={form.errors} />
      <InputField
        meta={fields.confirm}
        label="Type your email address to confirm"
        hint={<>Type {email}</>}
        autoComplete="off"
      />
      <IntentButton intent="delete" pendingLabel="Deleting…" danger>
        Delete my profile
      </IntentButton>
    </Form>
  )
}
