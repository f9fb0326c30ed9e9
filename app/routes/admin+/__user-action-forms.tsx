import {
  getFormProps,
  getInputProps,
  type FieldMetadata,
  type FormMetadata,
  type SubmissionResult,
} from '@conform-to/react'
import { Form } from '@remix-run/react'
import { type ReactNode } from 'react'
import { FieldErrors, FormErrors } from '#app/components/forms.tsx'
import { IntentButton } from '#app/components/intent-button.tsx'
import {
  ChangePlanSchema,
  ConfirmPaymentSchema,
  DisableAccountSchema,
  EnableAccountSchema,
  EndSubscriptionSchema,
  ExtendTrialSchema,
  GrantQuotaSchema,
  ResendConfirmationSchema,
  type UserActionIntent,
} from '#app/utils/admin-schemas.ts'
import { singleSelectProps } from '#app/utils/select-props.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'

/**
 * The forms of /admin/users/{userId}. Each posts its own `intent`, shows only its own answer, and needs its
 * "I confirm" box ticked: a plain checkbox, checked by the browser and again by the server, with or without
 * JavaScript.
 */
type LastResult = SubmissionResult<string[]> | null | undefined
type AnyField = FieldMetadata<unknown, Record<string, unknown>, string[]>

function ConfirmBox({ meta, children }: { meta: AnyField; children: ReactNode }) {
  const { key, ...checkbox } = getInputProps(meta as FieldMetadata<string>, { type: 'checkbox' })
  return (
    <div className="field">
      <label className="checkbox">
        <input key={key} {...checkbox} /> I confirm: {children}
      </label>
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  )
}

// Every admin action's button says the same while its form is sent.
const WORKING = 'Working…'

function ActionForm<Fields extends Record<string, unknown>>({
  intent,
  title,
  form,
  children,
}: {
  intent: UserActionIntent
  title: string
  form: FormMetadata<Fields, string[]>
  children: ReactNode
}) {
  return (
    <Form method="POST" className="form admin-action" {...getFormProps(form)} aria-labelledby={`${form.id}-title`}>
      <h3 id={`${form.id}-title`}>{title}</h3>
      <input type="hidden" name="intent" value={intent} />
      <FormErrors id={form.errorId} errors={form.errors} />
      {children}
    </Form>
  )
}

export function ConfirmPaymentForm({
  invoice,
  lastResult,
}: {
  invoice: { id: string; number: string; label: string }
  lastResult: LastResult
}) {
  const [form, fields] = useSchemaForm(ConfirmPaymentSchema, { id: 'confirm-payment', lastResult })
  return (
    <ActionForm intent="confirm-payment" title="Confirm a payment" form={form}>
      <input type="hidden" name={fields.invoiceId.name} value={invoice.id} />
      <FieldErrors id={fields.invoiceId.errorId} errors={fields.invoiceId.errors} />
      <ConfirmBox meta={fields.confirm}>
        invoice {invoice.number} ({invoice.label}) is paid.
      </ConfirmBox>
      <IntentButton intent="confirm-payment" pendingLabel={WORKING}>
        Confirm payment
      </IntentButton>
    </ActionForm>
  )
}

export function ChangePlanForm({
  tariffs,
  lastResult,
}: {
  tariffs: { tier: number; name: string }[]
  lastResult: LastResult
}) {
  const [form, fields] = useSchemaForm(ChangePlanSchema, { id: 'change-plan', lastResult })
  return (
    <ActionForm intent="change-plan" title="Change plan" form={form}>
      <p className="field-hint">Issues an invoice for the new plan. An active plan stays until that invoice is paid.</p>
      <div className="field">
        <label htmlFor={fields.tier.id}>Plan</label>
        <select key={fields.tier.key} {...singleSelectProps(fields.tier)}>
          <option value="">Choose…</option>
          {tariffs.map((tariff) => (
            <option key={tariff.tier} value={tariff.tier}>
              {tariff.tier} — {tariff.name}
            </option>
          ))}
        </select>
        <FieldErrors id={fields.tier.errorId} errors={fields.tier.errors} />
      </div>
      <div className="field">
        <label htmlFor={fields.periodMonths.id}>Billing</label>
        <select key={fields.periodMonths.key} {...singleSelectProps(fields.periodMonths)}>
          <option value="">Choose…</option>
          <option value="1">Monthly</option>
          <option value="12">Yearly</option>
        </select>
        <FieldErrors id={fields.periodMonths.errorId} errors={fields.periodMonths.errors} />
      </div>
      <ConfirmBox meta={fields.confirm}>issue an invoice for this plan.</ConfirmBox>
      <IntentButton intent="change-plan" pendingLabel={WORKING}>
        Change plan
      </IntentButton>
    </ActionForm>
  )
}

function NumberField({ meta, label, min, max }: { meta: AnyField; label: string; min: number; max: number }) {
  const { key, ...inputProps } = getInputProps(meta as FieldMetadata<number>, { type: 'number' })
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      <input key={key} {...inputProps} min={min} max={max} step={1} inputMode="numeric" />
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  )
}

export function ExtendTrialForm({ lastResult }: { lastResult: LastResult }) {
  const [form, fields] = useSchemaForm(ExtendTrialSchema, { id: 'extend-trial', lastResult })
  return (
    <ActionForm intent="extend-trial" title="Extend the trial" form={form}>
      <p className="field-hint">
        Counted from the trial’s end, or from today when it is over. Only for owners who never paid.
      </p>
      <NumberField meta={fields.days} label="Days to add (1–90)" min={1} max={90} />
      <ConfirmBox meta={fields.confirm}>extend this owner’s trial.</ConfirmBox>
      <IntentButton intent="extend-trial" pendingLabel={WORKING}>
        Extend trial
      </IntentButton>
    </ActionForm>
  )
}

export function GrantQuotaForm({ lastResult }: { lastResult: LastResult }) {
  const [form, fields] = useSchemaForm(GrantQuotaSchema, { id: 'grant-quota', lastResult })
  return (
    <ActionForm intent="grant-quota" title="Grant push messages" form={form}>
      <p className="field-hint">Added to the additional quota: used after the monthly quota, and they never expire.</p>
      <NumberField meta={fields.messages} label="Messages to add (1–1000)" min={1} max={1000} />
      <ConfirmBox meta={fields.confirm}>grant these messages.</ConfirmBox>
      <IntentButton intent="grant-quota" pendingLabel={WORKING}>
        Grant messages
      </IntentButton>
    </ActionForm>
  )
}

/** The actions without fields of their own: the confirmation is all they ask. */
const SIMPLE_FORMS = {
  'end-subscription': {
    schema: EndSubscriptionSchema,
    title: 'End the subscription',
    button: 'End subscription',
    confirm: 'end the subscription now; access stops and an open invoice is void.',
    danger: true,
  },
  'resend-confirmation': {
    schema: ResendConfirmationSchema,
    title: 'Resend the confirmation link',
    button: 'Resend link',
    confirm: 'mail a new confirmation link.',
    danger: false,
  },
  disable: {
    schema: DisableAccountSchema,
    title: 'Disable the account',
    button: 'Disable account',
    confirm: 'disable this account and sign it out everywhere.',
    danger: true,
  },
  enable: {
    schema: EnableAccountSchema,
    title: 'Enable the account',
    button: 'Enable account',
    confirm: 'let this account sign in again.',
    danger: false,
  },
} as const

export function SimpleActionForm({
  intent,
  lastResult,
}: {
  intent: keyof typeof SIMPLE_FORMS
  lastResult: LastResult
}) {
  const { schema, title, button, confirm, danger } = SIMPLE_FORMS[intent]
  const [form, fields] = useSchemaForm(schema, { id: intent, lastResult })
  return (
    <ActionForm intent={intent} title={title} form={form}>
      <ConfirmBox meta={fields.confirm}>{confirm}</ConfirmBox>
      <IntentButton intent={intent} pendingLabel={WORKING} danger={danger}>
        {button}
      </IntentButton>
    </ActionForm>
  )
}
