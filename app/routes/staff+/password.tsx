import { getFormProps, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useActionData, type MetaFunction } from '@remix-run/react'
import { NewPasswordFields, PasswordField } from '#app/components/auth-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormErrors, SubmitButton } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { passRetryAfter, rateLimitedFormReply, unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { changeOwnPassword } from '#app/services/accounts/profile.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { requireStaff } from '#app/services/auth/session.server.ts'
import { changePasswordSchema } from '#app/utils/profile-schemas.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'

/** A staff member always has a password (the invitation set it): the current one confirms the change. */
const StaffPasswordSchema = changePasswordSchema(true)
const HIDDEN_PASSWORDS = ['password', 'currentPassword', 'confirmPassword']

export const headers = passRetryAfter

export async function loader({ request }: LoaderFunctionArgs) {
  await requireStaff(request)
  return null
}

type PasswordActionData = { result: SubmissionResult<string[]> }

/**
 * The owner's password change, for a staff member: the sign-up policy, the current password checked (wrong guesses
 * count like failed logins), and every other browser of theirs signed out.
 */
export async function action({ request }: ActionFunctionArgs) {
  const { staffId } = await requireStaff(request)
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: StaffPasswordSchema })
  const hideFields = HIDDEN_PASSWORDS
  if (submission.status !== 'success')
    return formReply<PasswordActionData>({ result: submission.reply({ hideFields }) })
  const outcome = await unlessRateLimited(changeOwnPassword(request, { userId: staffId, ...submission.value }))
  if (outcome instanceof RateLimitedError) return rateLimitedFormReply(submission, outcome, { hideFields })
  if (outcome.status === 'error') {
    const result = submission.reply({ fieldErrors: { [outcome.field]: [outcome.message] }, hideFields })
    return formReply<PasswordActionData>({ result })
  }
  return redirectWithToast('/staff', { message: outcome.message })
}

export default function StaffPassword() {
  const actionData = useActionData<typeof action>() as PasswordActionData | undefined
  const [form, fields] = useSchemaForm(StaffPasswordSchema, { id: 'password-form', lastResult: actionData?.result })
  return (
    <div className="staff-password">
      <h1>Change password</h1>
      <section className="panel">
        <Form method="POST" className="form" {...getFormProps(form)}>
          <FormErrors id={form.errorId} errors={form.errors} />
          <PasswordField
            meta={fields.currentPassword}
            label="Current password"
            shown={false}
            autoComplete="current-password"
          />
          <NewPasswordFields password={fields.password} confirmPassword={fields.confirmPassword} shown={false} />
          <p className="field-hint">Your other devices will be signed out.</p>
          <SubmitButton pendingLabel="Saving…">Change password</SubmitButton>
        </Form>
      </section>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Change password — Stampwise' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary as="div" />
}
