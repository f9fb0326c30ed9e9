import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { FormErrors } from '#app/components/auth-form.tsx'
import { SubmitButton } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import {
  passRetryAfter,
  rateLimitedFormReply,
  tooManyRequests,
  unlessRateLimited,
} from '#app/server/rate-limit-reply.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { declineInvitation } from '#app/services/team/invitation-release.server.ts'
import { checkInvitation, JOIN_MESSAGES } from '#app/services/team/invitation.server.ts'
import { TokenSchema } from '#app/utils/auth-schemas.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { InvitationRefused } from './__invitation-refused.tsx'
import { type AuthHandle } from './_layout.tsx'

export const handle: AuthHandle = { backTo: '/login' }

/**
 * /decline-invitation?token=: 'Not you? Decline' from a staff invitation's mail. The page names the business and
 * asks once; the post releases the invitation, so the address holds nothing any more (an own account, another
 * business's invitation, Google or Apple sign-in all work), and the owner is told
 * (docs/decisions/052-invitations-hold-no-address.md).
 * Signed in or not makes no difference: the link itself proves the mail reached its reader.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const query = new URL(request.url).searchParams
  if (query.has('declined')) return data({ invitation: null, error: null, declined: true })
  const parsed = TokenSchema.safeParse({ token: query.get('token') ?? undefined })
  if (!parsed.success) return data({ invitation: null, error: JOIN_MESSAGES.unknown, declined: false }, { status: 400 })
  const invitation = await unlessRateLimited(checkInvitation({ token: parsed.data.token, ip: clientAddress(request) }))
  if (invitation instanceof RateLimitedError) {
    return data({ invitation: null, error: invitation.message, declined: false }, tooManyRequests(invitation))
  }
  if (invitation.state !== 'valid') {
    return data({ invitation: null, error: invitation.message, declined: false }, { status: 400 })
  }
  const { businessName } = invitation
  return data({ invitation: { token: parsed.data.token, businessName }, error: null, declined: false })
}

export async function action({ request }: ActionFunctionArgs) {
  const submission = parseWithZod(await readFormData(request), { schema: TokenSchema })
  if (submission.status !== 'success') {
    return formReply({ result: submission.reply({ formErrors: [JOIN_MESSAGES.unknown] }) })
  }
  const outcome = await unlessRateLimited(
    declineInvitation({ token: submission.value.token, ip: clientAddress(request) }),
  )
  if (outcome instanceof RateLimitedError) return rateLimitedFormReply(submission, outcome)
  if (outcome.status === 'error') {
    return formReply({ result: submission.reply({ formErrors: [outcome.message] }) })
  }
  // Post/redirect/get: the used link would read as withdrawn on a reload.
  return redirect('/decline-invitation?declined')
}

export default function DeclineInvitation() {
  const { invitation, error, declined } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [form] = useSchemaForm(TokenSchema, { id: 'decline-invitation-form', lastResult: actionData?.result })
  if (declined) {
    return (
      <>
        <h1>Invitation declined</h1>
        <p role="status">
          You declined the invitation. Nothing more happens, and the business has been told. This address is free: you
          can create your own Stampwise account with it any time.
        </p>
        <Link to="/sign-up" className="button button--block">
          Create my own account
        </Link>
      </>
    )
  }
  const token = invitation?.token ?? (actionData ? actionData.result.initialValue?.token : null)
  if (typeof token !== 'string') {
    return <InvitationRefused message={error} />
  }
  return (
    <>
      <h1>Decline the invitation?</h1>
      {invitation ? (
        <p className="auth-lead">{`${invitation.businessName} invited this e-mail address to their team on Stampwise. If you do not want to join them, or this is not you, decline: the link stops working and the business is told.`}</p>
      ) : null}
      <Form method="POST" className="form" {...getFormProps(form)}>
        <FormErrors id={form.errorId} errors={form.errors} />
        <input type="hidden" name="token" value={token} />
        <SubmitButton pendingLabel="Declining…">Decline the invitation</SubmitButton>
      </Form>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Decline an invitation — Stampwise' }]

export const headers = passRetryAfter
