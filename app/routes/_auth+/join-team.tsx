import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
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
import { signedInEmail } from '#app/services/auth/guest.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress, signIn } from '#app/services/auth/session.server.ts'
import { checkInvitation, JOIN_MESSAGES, joinTeam } from '#app/services/team/invitation.server.ts'
import { TokenSchema } from '#app/utils/auth-schemas.ts'
import { JoinTeamSchema } from '#app/utils/staff.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { InvitationRefused } from './__invitation-refused.tsx'
import { type AuthHandle } from './_layout.tsx'

export const handle: AuthHandle = { backTo: '/login' }

type Invited = { token: string; name: string; email: string; businessName: string }

/**
 * /join-team?token=: the page a staff invitation's link opens (app/services/team/invitation.server.ts). The invitee
 * chooses a password under the sign-up policy; that accepts the invitation, confirms the address, signs them in and
 * lands them on /staff. Guests only, but a signed-in device (a shop's tablet with a colleague or the owner signed in)
 * is not sent away: the page says who is signed in and offers to log out, leaving the link unused.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const signedInAs = await signedInEmail(request)
  const signedIn = signedInAs ? JOIN_MESSAGES.signedIn(signedInAs) : null
  if (signedIn) return data({ invited: null, error: null, signedIn })
  const parsed = TokenSchema.safeParse({ token: new URL(request.url).searchParams.get('token') ?? undefined })
  if (!parsed.success) return data({ invited: null, error: JOIN_MESSAGES.unknown, signedIn: null }, { status: 400 })
  const invitation = await unlessRateLimited(checkInvitation({ token: parsed.data.token, ip: clientAddress(request) }))
  if (invitation instanceof RateLimitedError) {
    return data({ invited: null, error: invitation.message, signedIn: null }, tooManyRequests(invitation))
  }
  if (invitation.state !== 'valid') {
    return data({ invited: null, error: invitation.message, signedIn: null }, { status: 400 })
  }
  const { name, email, businessName } = invitation
  return data({
    invited: { token: parsed.data.token, name, email, businessName } as Invited,
    error: null,
    signedIn: null,
  })
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: JoinTeamSchema })
  // Accepting signs the invitee in: whoever is signed in on this device logs out first (the link stays unused).
  const signedInAs = await signedInEmail(request)
  if (signedInAs) {
    return formReply(
      { result: submission.reply({ formErrors: [JOIN_MESSAGES.signedIn(signedInAs)], hideFields: HIDDEN_FIELDS }) },
      409,
    )
  }
  if (submission.status !== 'success') {
    return formReply({ result: submission.reply({ hideFields: HIDDEN_FIELDS }) })
  }
  const { token, password } = submission.value
  const outcome = await unlessRateLimited(joinTeam({ token, password, ip: clientAddress(request) }))
  if (outcome instanceof RateLimitedError)
    return rateLimitedFormReply(submission, outcome, { hideFields: HIDDEN_FIELDS })
  if (outcome.status === 'error') {
    return formReply({ result: submission.reply({ formErrors: [outcome.message], hideFields: HIDDEN_FIELDS }) })
  }
  return redirect('/staff', { headers: { 'Set-Cookie': await signIn(request, outcome.staffId) } })
}

export default function JoinTeam() {
  const { invited, error, signedIn } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  if (signedIn) return <SignedIn message={signedIn} />
  // After a refused post the page keeps the form, with the answer above it.
  const postedToken = actionData?.result.initialValue?.token
  const token = invited?.token ?? (typeof postedToken === 'string' ? postedToken : null)
  if (!token) {
    return <InvitationRefused message={error} />
  }
  return <JoinForm token={token} invited={invited} />
}

/** A plain form to /logout: it works without JavaScript, and /logout lands on the login page. */
function SignedIn({ message }: { message: string }) {
  return (
    <>
      <h1>Join the team</h1>
      <p role="alert" className="form-message form-message--error">
        {message}
      </p>
      <Form method="POST" action="/logout">
        <button type="submit" className="button button--block">
          Log out
        </button>
      </Form>
    </>
  )
}

function JoinForm({ token, invited }: { token: string; invited: Invited | null }) {
  const actionData = useActionData<typeof action>()
  const { shown, setShown } = useShowPassword(actionData?.result)
  const [form, fields] = useSchemaForm(JoinTeamSchema, { id: 'join-team-form', lastResult: actionData?.result })
  return (
    <>
      <h1>Join the team</h1>
      {invited ? (
        <p className="auth-lead">
          {invited.name}, {invited.businessName} invited you to stamp their loyalty cards. Choose a password: you will
          sign in with {invited.email}.
        </p>
      ) : null}
      <Form method="POST" className="form" {...getFormProps(form)}>
        <input type="hidden" name="token" value={token} />
        <FormErrors id={form.errorId} errors={[...(form.errors ?? []), ...(fields.token.errors ?? [])]} />
        <NewPasswordFields
          password={fields.password}
          confirmPassword={fields.confirmPassword}
          shown={shown}
          labels={['Password', 'Confirm password']}
        />
        <ShowPasswordToggle shown={shown} onToggle={setShown} />
        <SubmitButton pendingLabel="Joining…">Join the team</SubmitButton>
      </Form>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Join the team — Stampwise' }]

export const headers = passRetryAfter
