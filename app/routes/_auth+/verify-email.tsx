import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { FormErrors } from '#app/components/auth-form.tsx'
import { InputField, SubmitButton } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { passRetryAfter, rateLimitedFormReply, unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { resendConfirmation } from '#app/services/auth/auth.server.ts'
import { requireAnonymous } from '#app/services/auth/guest.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { ResendSchema } from '#app/utils/auth-schemas.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { type AuthHandle } from './_layout.tsx'

export const handle: AuthHandle = { backTo: '/sign-up' }

const RESENT_MESSAGE = 'Email has been sent successfully'

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request)
  const parsed = ResendSchema.safeParse({ email: new URL(request.url).searchParams.get('email') ?? undefined })
  return { email: parsed.success ? parsed.data.email : null }
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: ResendSchema })
  if (submission.status !== 'success') return formReply({ result: submission.reply() })
  const { email } = submission.value
  const result = await unlessRateLimited(resendConfirmation({ email, ip: clientAddress(request) }))
  if (result instanceof RateLimitedError) return rateLimitedFormReply(submission, result)
  return redirectWithToast(`/verify-email?${new URLSearchParams({ email })}`, {
    message: RESENT_MESSAGE,
    type: 'success',
    durationMs: 3000,
  })
}

export default function VerifyEmail() {
  const { email } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [form, fields] = useSchemaForm(ResendSchema, { id: 'resend-form', lastResult: actionData?.result })
  return (
    <>
      <h1>Confirm your e-mail</h1>
      {email ? (
        <p>
          We have sent a confirmation link to <strong className="auth-email">{email}</strong>. Open it to activate your
          account; it works for 48 hours.
        </p>
      ) : (
        <p>Enter the address you signed up with and we will send the confirmation link again.</p>
      )}
      <Form method="POST" className="form" {...getFormProps(form)}>
        {email ? (
          <>
            <input type="hidden" name="email" value={email} />
            <FormErrors id={form.errorId} errors={[...(form.errors ?? []), ...(fields.email.errors ?? [])]} />
            <p className="field-hint">Nothing arrived? Check your spam folder, or send the link again.</p>
          </>
        ) : (
          <>
            <FormErrors id={form.errorId} errors={form.errors} />
            <InputField meta={fields.email} label="Email" type="email" autoComplete="email" />
          </>
        )}
        <SubmitButton pendingLabel="Sending…">Resend</SubmitButton>
      </Form>
      <p className="auth-switch">
        Already confirmed? <Link to="/login">Log in</Link>
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Confirm your e-mail — Stampwise' }]

export const headers = passRetryAfter
