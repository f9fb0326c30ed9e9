import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { useEffect, useState } from 'react'
import {
  FormErrors,
  HIDDEN_FIELDS,
  NewPasswordFields,
  ShowPasswordToggle,
  useShowPassword,
} from '#app/components/auth-form.tsx'
import { InputField, SubmitButton } from '#app/components/forms.tsx'
import { HoneypotField, isHoneypotFilled } from '#app/components/honeypot.tsx'
import { SocialSignIn } from '#app/components/social-sign-in.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { passRetryAfter, rateLimitedFormReply, unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { signUp } from '#app/services/auth/auth.server.ts'
import { requireAnonymous } from '#app/services/auth/guest.server.ts'
import { socialSignInView } from '#app/services/auth/oidc-config.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { SignupSchema } from '#app/utils/auth-schemas.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { type AuthHandle } from './_layout.tsx'

export const handle: AuthHandle = { backTo: '/login' }

const verifyEmailPath = (email: string) => `/verify-email?${new URLSearchParams({ email })}`

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request)
  return { social: socialSignInView() }
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: SignupSchema })
  if (isHoneypotFilled(formData)) {
    const email = formData.get('email')
    return redirect(typeof email === 'string' ? verifyEmailPath(email.trim()) : '/verify-email')
  }
  if (submission.status !== 'success') {
    return formReply({ result: submission.reply({ hideFields: HIDDEN_FIELDS }) })
  }
  const { email, password, timeZone, withdrawInvitation } = submission.value
  const result = await unlessRateLimited(
    signUp({ email, password, timeZone, withdrawInvitation, ip: clientAddress(request) }),
  )
  if (result instanceof RateLimitedError) return rateLimitedFormReply(submission, result, { hideFields: HIDDEN_FIELDS })
  if (result.status === 'error') {
    return formReply({
      result: submission.reply({ fieldErrors: { [result.field]: [result.message] }, hideFields: HIDDEN_FIELDS }),
    })
  }
  if (result.status === 'invited') {
    // 409: the address is held by an invitation the person may still accept; the box lets them withdraw it.
    return formReply(
      {
        result: submission.reply({ fieldErrors: { email: [result.message] }, hideFields: HIDDEN_FIELDS }),
        invitedBy: result.businessName,
      },
      409,
    )
  }
  return redirect(verifyEmailPath(result.email))
}

export default function SignUp() {
  const { social } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const { shown, setShown } = useShowPassword(actionData?.result)
  const [form, fields] = useSchemaForm(SignupSchema, { id: 'sign-up-form', lastResult: actionData?.result })
  return (
    <>
      <h1>Create your account</h1>
      <p className="auth-lead">Start your free 14-day trial. No card details needed.</p>
      <Form method="POST" className="form" {...getFormProps(form)}>
        <HoneypotField />
        <BrowserTimeZoneField />
        <FormErrors id={form.errorId} errors={form.errors} />
        <InputField meta={fields.email} label="Email" type="email" autoComplete="email" />
        <NewPasswordFields
          password={fields.password}
          confirmPassword={fields.confirmPassword}
          shown={shown}
          labels={['Password', 'Repeat password']}
        />
        <ShowPasswordToggle shown={shown} onToggle={setShown} />
        {actionData && 'invitedBy' in actionData ? (
          <label className="checkbox">
            <input type="checkbox" name={fields.withdrawInvitation.name} value="on" />
            {`Create my own account instead (withdraws the invitation from ${actionData.invitedBy})`}
          </label>
        ) : null}
        <SubmitButton pendingLabel="Creating your account…">Continue</SubmitButton>
      </Form>
      <p className="auth-divider">
        <span>or</span>
      </p>
      <SocialSignIn {...social} />
      <p className="auth-switch">
        Already have an account? <Link to="/login">Log in</Link>
      </p>
    </>
  )
}

/**
 * The browser's time zone, so the account's days start where the business is (docs/product/insights-and-exports.md,
 * "Time zone"). Filled in after hydration; without JavaScript it stays empty and the account gets UTC, changeable in
 * the profile.
 */
function BrowserTimeZoneField() {
  const [timeZone, setTimeZone] = useState('')
  useEffect(() => setTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone ?? ''), [])
  return <input type="hidden" name="timeZone" value={timeZone} />
}

export const meta: MetaFunction = () => [{ title: 'Sign up — Stampwise' }]

export const headers = passRetryAfter
