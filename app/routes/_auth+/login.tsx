import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import {
  FormErrors,
  HIDDEN_FIELDS,
  PasswordField,
  ShowPasswordToggle,
  useShowPassword,
} from '#app/components/auth-form.tsx'
import { InputField, SubmitButton } from '#app/components/forms.tsx'
import { SocialSignIn } from '#app/components/social-sign-in.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { passRetryAfter, rateLimitedFormReply, unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { logIn } from '#app/services/auth/auth.server.ts'
import { landingAfterSignIn, requireAnonymous } from '#app/services/auth/guest.server.ts'
import { socialSignInView } from '#app/services/auth/oidc-config.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress, safeRedirectPath, signIn } from '#app/services/auth/session.server.ts'
import { LoginSchema } from '#app/utils/auth-schemas.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { type AuthHandle } from './_layout.tsx'

export const handle: AuthHandle = { backTo: '/' }

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request, { toLanding: true })
  // An unsafe redirectTo (another site) is dropped here, and checked again in the action.
  const redirectTo = safeRedirectPath(new URL(request.url).searchParams.get('redirectTo'), '')
  return { social: socialSignInView(), redirectTo: redirectTo || null }
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: LoginSchema })
  if (submission.status !== 'success') {
    return formReply({ result: submission.reply({ hideFields: HIDDEN_FIELDS }), unconfirmedEmail: null })
  }
  const { email, password, redirectTo } = submission.value
  const result = await unlessRateLimited(logIn({ email, password, ip: clientAddress(request) }))
  if (result instanceof RateLimitedError) {
    return rateLimitedFormReply(submission, result, { hideFields: HIDDEN_FIELDS, extra: { unconfirmedEmail: null } })
  }
  if (result.status === 'premaid') return redirect(`/change-password?${new URLSearchParams({ token: result.token })}`)
  if (result.status === 'error') {
    const unconfirmed = result.code === 'unconfirmed'
    return formReply(
      {
        result: submission.reply({ formErrors: [result.message], hideFields: HIDDEN_FIELDS }),
        unconfirmedEmail: unconfirmed ? email : null,
      },
      unconfirmed ? 403 : 401,
    )
  }
  const to = await landingAfterSignIn(result.userId, safeRedirectPath(redirectTo, ''))
  return redirect(to, { headers: { 'Set-Cookie': await signIn(request, result.userId) } })
}

export default function Login() {
  const { social, redirectTo } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const { shown, setShown } = useShowPassword(actionData?.result)
  const [form, fields] = useSchemaForm(LoginSchema, { id: 'login-form', lastResult: actionData?.result })
  const unconfirmedEmail = actionData?.unconfirmedEmail
  return (
    <>
      <h1>Welcome back!</h1>
      <Form method="POST" className="form" {...getFormProps(form)}>
        {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
        <FormErrors id={form.errorId} errors={form.errors}>
          {unconfirmedEmail ? (
            <p>
              <Link to={`/verify-email?${new URLSearchParams({ email: unconfirmedEmail })}`}>
                Send me a new confirmation link
              </Link>
            </p>
          ) : null}
        </FormErrors>
        <InputField meta={fields.email} label="Email" type="email" autoComplete="email" />
        <PasswordField meta={fields.password} label="Password" shown={shown} autoComplete="current-password" />
        <div className="auth-row">
          <ShowPasswordToggle shown={shown} onToggle={setShown} />
          <Link to="/forgot-password">Forgot password?</Link>
        </div>
        <SubmitButton pendingLabel="Logging in…">Login</SubmitButton>
      </Form>
      <p className="auth-divider">
        <span>or</span>
      </p>
      <SocialSignIn {...social} />
      <p className="auth-switch">
        New to Stampwise? <Link to="/sign-up">Create an account</Link>
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Log in — Stampwise' }]

export const headers = passRetryAfter
