import { getFormProps, getInputProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, type MetaFunction } from '@remix-run/react'
import { FieldErrors, FormErrors, InputField, SubmitButton, TextareaField } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { createPremadeAccount } from '#app/services/accounts/premade-account.server.ts'
import { AdminActionError } from '#app/services/admin/admin-actions.server.ts'
import { requireAdmin } from '#app/services/admin/admin.server.ts'
import { EMAIL_TAKEN } from '#app/services/auth/auth.server.ts'
import { PremadeAccountSchema } from '#app/utils/admin-schemas.ts'
import { DEFAULT_CARD_DESIGN } from '#app/utils/card-design-schema.ts'
import { singleSelectProps } from '#app/utils/select-props.ts'
import { STAMP_ICONS } from '#app/utils/stamp-icon-names.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { isEmailTaken } from '#models/user.server.ts'

/**
 * /admin/users/new: an account made for an owner, with their card ready (docs/product/passwords-and-tokens.md,
 * "Pre-made accounts"). The owner gets the invitation with a one-time password; their first sign-in asks for their own
 * password and then shows the card at /premaid_card.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request)
  return null
}

export async function action({ request }: ActionFunctionArgs) {
  const actorId = await requireAdmin(request)
  const submission = await parseWithZod(await readFormData(request), {
    schema: PremadeAccountSchema.superRefine(async ({ email }, context) => {
      if (await isEmailTaken(email)) context.addIssue({ code: 'custom', path: ['email'], message: EMAIL_TAKEN })
    }),
    async: true,
  })
  if (submission.status !== 'success') return formReply({ result: submission.reply() })
  try {
    const created = await createPremadeAccount({ actorId, input: submission.value })
    return redirectWithToast(`/admin/users/${created.userId}`, {
      message: `Pre-made account created: the invitation is on its way to ${created.email}.`,
      durationMs: 8000,
    })
  } catch (error) {
    if (!(error instanceof AdminActionError)) throw error
    const reply = error.field ? { fieldErrors: { [error.field]: [error.message] } } : { formErrors: [error.message] }
    return formReply({ result: submission.reply(reply) })
  }
}

export default function NewPremadeAccount() {
  const actionData = useActionData<typeof action>()
  const [form, fields] = useSchemaForm(PremadeAccountSchema, { id: 'premade-account', lastResult: actionData?.result })
  const { key: confirmKey, ...confirmProps } = getInputProps(fields.confirm, { type: 'checkbox' })
  // The owner's defaults (card-design-schema.ts) until the admin changes them.
  const color = (meta: typeof fields.backgroundColor, fallback: string) => {
    const { key, ...props } = getInputProps(meta, { type: 'color' })
    return <input key={key} {...props} defaultValue={meta.initialValue ?? fallback} />
  }
  const numberInput = (meta: typeof fields.stampsRequired, fallback: number) => {
    const { key, ...props } = getInputProps(meta, { type: 'number' })
    return <input key={key} {...props} defaultValue={meta.initialValue ?? String(fallback)} min={1} max={20} step={1} />
  }
  return (
    <>
      <p>
        <Link to="/admin">← All users</Link>
      </p>
      <h1>Create a pre-made account</h1>
      <p className="lead">
        The owner gets an e-mail with a one-time password. Signing in with it, they choose their own password and find
        this card ready, with its QR code.
      </p>
      <Form method="POST" className="form panel admin-premade" {...getFormProps(form)}>
        <FormErrors id={form.errorId} errors={form.errors} />
        <InputField meta={fields.email} label="Owner’s e-mail" type="email" autoComplete="off" />
        <h2>The card</h2>
        <InputField meta={fields.businessName} label="Business name" />
        <InputField meta={fields.title} label="Card title" />
        <div className="field">
          <label htmlFor={fields.stampsRequired.id}>Stamps needed for the reward (1–20)</label>
          {numberInput(fields.stampsRequired, DEFAULT_CARD_DESIGN.stampsRequired)}
          <FieldErrors id={fields.stampsRequired.errorId} errors={fields.stampsRequired.errors} />
        </div>
        <InputField meta={fields.reward} label="Reward" />
        <TextareaField meta={fields.terms} label="Terms (optional)" rows={3} />
        <div className="admin-premade__colors">
          <div className="field">
            <label htmlFor={fields.backgroundColor.id}>Background colour</label>
            {color(fields.backgroundColor, DEFAULT_CARD_DESIGN.backgroundColor)}
            <FieldErrors id={fields.backgroundColor.errorId} errors={fields.backgroundColor.errors} />
          </div>
          <div className="field">
            <label htmlFor={fields.textColor.id}>Text colour</label>
            {color(fields.textColor, DEFAULT_CARD_DESIGN.textColor)}
            <FieldErrors id={fields.textColor.errorId} errors={fields.textColor.errors} />
          </div>
          <div className="field">
            <label htmlFor={fields.stampIcon.id}>Stamp icon</label>
            <select
              key={fields.stampIcon.key}
              {...singleSelectProps(fields.stampIcon)}
              defaultValue={singleSelectProps(fields.stampIcon).defaultValue ?? DEFAULT_CARD_DESIGN.stampIcon}
            >
              {STAMP_ICONS.map((icon) => (
                <option key={icon} value={icon}>
                  {icon}
                </option>
              ))}
            </select>
            <FieldErrors id={fields.stampIcon.errorId} errors={fields.stampIcon.errors} />
          </div>
        </div>
        <div className="field">
          <label className="checkbox">
            <input key={confirmKey} {...confirmProps} /> I confirm: create this account and e-mail the invitation.
          </label>
          <FieldErrors id={fields.confirm.errorId} errors={fields.confirm.errors} />
        </div>
        <SubmitButton pendingLabel="Creating…">Create account and send invitation</SubmitButton>
      </Form>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Create a pre-made account — Stampwise admin' }]
