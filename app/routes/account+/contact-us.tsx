import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useLocation, type MetaFunction } from '@remix-run/react'
import { FormErrors, InputField, SubmitButton, TextareaField } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { rateLimitedFormReply, unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { sendAccountFeedback } from '#app/services/accounts/account-feedback.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { requireUserId, safeRedirectPath } from '#app/services/auth/session.server.ts'
import { AccountFeedbackSchema, CONTACT_US_PATH, FEEDBACK_SENT_MESSAGE } from '#app/utils/account-feedback.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { getPublicUser } from '#models/user.server.ts'

export const handle: AccountHandle = { title: 'Feedback form', back: 'previous' }

export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const user = await getPublicUser(userId)
  if (!user) throw notFound('Account not found')
  return { email: user.email }
}

/**
 * Sends the owner's message. Posted from this page, or from the header's feedback sender on any page: without
 * JavaScript that form carries `redirectTo` (a same-site path) and comes back there with a toast; with JavaScript
 * it posts through a fetcher with `intent=inline` and gets the result instead of a redirect, so the page stays.
 */
export async function action({ request }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const formData = await readFormData(request)
  const inline = formData.get('intent') === 'inline'
  const redirectTo = formData.has('redirectTo') ? safeRedirectPath(formData.get('redirectTo'), CONTACT_US_PATH) : null
  const submission = parseWithZod(formData, { schema: AccountFeedbackSchema })
  if (submission.status !== 'success') {
    return formReply({ result: submission.reply(), sent: false, redirectTo })
  }
  const sent = await unlessRateLimited(sendAccountFeedback({ userId, ...submission.value }))
  if (sent instanceof RateLimitedError) {
    // The message only, without Retry-After, as this page has always answered.
    return rateLimitedFormReply(submission, sent.message, { extra: { sent: false, redirectTo } })
  }
  if (inline) return { result: submission.reply({ resetForm: true }), sent: true, redirectTo }
  return redirectWithToast(redirectTo ?? CONTACT_US_PATH, { message: FEEDBACK_SENT_MESSAGE }, { status: 303 })
}

export default function ContactUs() {
  const { email } = useLoaderData<typeof loader>()
  // A new form after each navigation: once sent (and redirected back here), the fields start empty again.
  const { key } = useLocation()
  return (
    <div className="account-page">
      <h1>Feedback form</h1>
      <p className="lead">
        A question, a problem or an idea? Write to us: real people read every message and reply to{' '}
        <strong className="account-email">{email}</strong> within one working day.
      </p>
      <FeedbackForm key={key} />
      <p>
        Many answers are already in the <Link to="/account/help">FAQ</Link>.
      </p>
    </div>
  )
}

function FeedbackForm() {
  const actionData = useActionData<typeof action>()
  const [form, fields] = useSchemaForm(AccountFeedbackSchema, {
    id: 'account-feedback',
    lastResult: actionData?.result,
  })
  return (
    <Form method="POST" className="form panel" {...getFormProps(form)}>
      {actionData?.redirectTo ? <input type="hidden" name="redirectTo" value={actionData.redirectTo} /> : null}
      <FormErrors id={form.errorId} errors={form.errors} />
      <InputField meta={fields.subject} label="Subject (optional)" />
      <TextareaField meta={fields.message} label="Message" rows={7} />
      <div>
        <SubmitButton pendingLabel="Sending…">Send message</SubmitButton>
      </div>
    </Form>
  )
}

export const meta: MetaFunction = () => [{ title: 'Feedback form — Stampwise' }]
