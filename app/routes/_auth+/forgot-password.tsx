import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, type MetaFunction } from '@remix-run/react'
import { FormErrors } from '#app/components/auth-form.tsx'
import { InputField, SubmitButton } from '#app/components/forms.tsx'
import { HoneypotField, isHoneypotFilled } from '#app/components/honeypot.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { passRetryAfter, rateLimitedFormReply, unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { requestPasswordReset } from '#app/services/auth/auth.server.ts'
import { requireAnonymous } from '#app/services/auth/guest.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { ForgotPasswordSchema } from '#app/utils/auth-schemas.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { type AuthHandle } from './_layout.tsx'

export const handle: AuthHandle = { backTo: '/login' }

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request)
  return null
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readFormData(request)
  if (isHoneypotFilled(formData)) return redirect('/reset-password-link')
  const submission = parseWithZod(formData, { schema: ForgotPasswordSchema })
  if (submission.status !== 'success') return formReply({ result: submission.reply() })
  const result = await unlessRateLimited(
    requestPasswordReset({ email: submission.value.email, ip: clientAddress(request) }),
  )
  if (result instanceof RateLimitedError) return rateLimitedFormReply(submission, result)
  // The same answer whether or not the address has an account.
  return redirect('/reset-password-link')
}

export default function ForgotPassword() {
  const actionData = useActionData<typeof action>()
  const [form, fields] = useSchemaForm(ForgotPasswordSchema, {
    id: 'forgot-password-form',
    lastResult: actionData?.result,
  })
  return (
    <>
      <h1>Forgot password?</h1>
      <p className="auth-lead">
        Enter the e-mail address of your account and we will send you a link to choose a new password.
      </p>
      <Form method="POST" className="form" {...getFormProps(form)}>
        <HoneypotField />
        <FormErrors id={form.errorId} errors={form.errors} />
        <InputField meta={fields.email} label="Email" type="email" autoComplete="email" />
        <SubmitButton pendingLabel="Sending…">Send reset link</SubmitButton>
      </Form>
      <p className="auth-switch">
        Remembered it? <Link to="/login">Log in</Link>
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Forgot password — Stampwise' }]

export const headers = passRetryAfter
