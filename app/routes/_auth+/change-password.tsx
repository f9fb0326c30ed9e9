import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import {
  FormErrors,
  HIDDEN_FIELDS,
  NewPasswordFields,
  ShowPasswordToggle,
  useShowPassword,
} from '#app/components/auth-form.tsx'
import { SubmitButton } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import {
  passRetryAfter,
  rateLimitedFormReply,
  tooManyRequests,
  unlessRateLimited,
} from '#app/server/rate-limit-reply.server.ts'
import {
  changePasswordWithToken,
  checkPasswordResetToken,
  TOKEN_MESSAGES,
  tokenError,
} from '#app/services/auth/auth.server.ts'
import { requireAnonymous } from '#app/services/auth/guest.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { ChangePasswordSchema, TokenSchema } from '#app/utils/auth-schemas.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { type AuthHandle } from './_layout.tsx'

export const handle: AuthHandle = { backTo: '/login' }

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request)
  const parsed = TokenSchema.safeParse({ token: new URL(request.url).searchParams.get('token') ?? undefined })
  if (!parsed.success) return data({ token: null, premade: false, tokenError: TOKEN_MESSAGES.unknown }, { status: 400 })
  const state = await unlessRateLimited(
    checkPasswordResetToken({ token: parsed.data.token, ip: clientAddress(request) }),
  )
  if (state instanceof RateLimitedError) {
    return data({ token: null, premade: false, tokenError: state.message }, tooManyRequests(state))
  }
  if (state.state !== 'valid')
    return data({ token: null, premade: false, tokenError: tokenError(state) }, { status: 400 })
  return data({ token: parsed.data.token, premade: state.payload.premade === true, tokenError: null })
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: ChangePasswordSchema })
  if (submission.status !== 'success') {
    return formReply({ result: submission.reply({ hideFields: HIDDEN_FIELDS }) })
  }
  const { token, password } = submission.value
  const result = await unlessRateLimited(changePasswordWithToken({ token, password, ip: clientAddress(request) }))
  if (result instanceof RateLimitedError) return rateLimitedFormReply(submission, result, { hideFields: HIDDEN_FIELDS })
  if (result.status === 'error') {
    return formReply({
      result: submission.reply({ fieldErrors: { password: [result.message] }, hideFields: HIDDEN_FIELDS }),
    })
  }
  return redirect(result.premade ? '/password-updated?premade=1' : '/password-updated')
}

export default function ChangePassword() {
  const { token, premade, tokenError } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  // After a failed post the link may be used up, but the form stays, with the answer under the password field.
  const postedToken = actionData?.result.initialValue?.token
  const formToken = token ?? (typeof postedToken === 'string' ? postedToken : null)
  if (!formToken) {
    return (
      <>
        <h1>This link does not work</h1>
        <p role="alert" className="form-message form-message--error">
          {tokenError}
        </p>
        <Link to="/forgot-password" className="button button--block">
          Request a new link
        </Link>
      </>
    )
  }
  return <ChangePasswordForm token={formToken} premade={premade} />
}

function ChangePasswordForm({ token, premade }: { token: string; premade: boolean }) {
  const actionData = useActionData<typeof action>()
  const { shown, setShown } = useShowPassword(actionData?.result)
  const [form, fields] = useSchemaForm(ChangePasswordSchema, {
    id: 'change-password-form',
    lastResult: actionData?.result,
  })
  return (
    <>
      <h1>{premade ? 'Choose your password' : 'Choose a new password'}</h1>
      {premade ? <p className="auth-lead">Replace the one-time password from your invitation with your own.</p> : null}
      <Form method="POST" className="form" {...getFormProps(form)}>
        <input type="hidden" name="token" value={token} />
        <FormErrors id={form.errorId} errors={[...(form.errors ?? []), ...(fields.token.errors ?? [])]} />
        <NewPasswordFields
          password={fields.password}
          confirmPassword={fields.confirmPassword}
          shown={shown}
          labels={['New password', 'Confirm password']}
        />
        <ShowPasswordToggle shown={shown} onToggle={setShown} />
        <SubmitButton pendingLabel="Saving…">Save new password</SubmitButton>
      </Form>
      <p className="auth-switch">
        Link not working? <Link to="/forgot-password">Request a new one</Link>
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Change password — Stampwise' }]

export const headers = passRetryAfter
