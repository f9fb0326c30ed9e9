import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { z } from 'zod'
import { FormErrors, InputField, RadioGroupField, SubmitButton, TextareaField } from '#app/components/forms.tsx'
import { HoneypotField, isHoneypotFilled } from '#app/components/honeypot.tsx'
import { Logo } from '#app/components/logo.tsx'
import { publicFormLimitMessage } from '#app/routes/__public-form.server.ts'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { rateLimitedFormReply } from '#app/server/rate-limit-reply.server.ts'
import { submitSupportMessage } from '#app/services/accounts/support.server.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'

const RATINGS = [
  { value: '1', label: '1 – Poor' },
  { value: '2', label: '2 – Fair' },
  { value: '3', label: '3 – Good' },
  { value: '4', label: '4 – Very good' },
  { value: '5', label: '5 – Excellent' },
] as const

const FeedbackSchema = z.object({
  email: z
    .email({ error: 'Enter a valid email address, or leave this field empty' })
    .max(254, 'Enter a valid email address, or leave this field empty')
    .optional(),
  message: z
    .string({ error: 'Tell us what you think' })
    .trim()
    .min(1, 'Tell us what you think')
    .max(5000, 'Keep your feedback to 5,000 characters or fewer'),
  rating: z.enum(['1', '2', '3', '4', '5'], { error: 'Choose a rating from 1 to 5' }).optional(),
})

/** Back to the page the visitor came from on this site, else home: the Referer is sent for same-origin pages only. */
function backAddress(request: Request) {
  const referer = request.headers.get('referer')
  if (!referer || !URL.canParse(referer)) return '/'
  const from = new URL(referer)
  const here = new URL(request.url)
  if (from.host !== here.host || from.pathname.startsWith('/feedback')) return '/'
  return `${from.pathname}${from.search}`
}

export async function loader({ request }: LoaderFunctionArgs) {
  const sent = new URL(request.url).searchParams.get('sent') === '1'
  return { sent, backTo: backAddress(request) }
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readFormData(request)
  if (isHoneypotFilled(formData)) return redirect('/feedback?sent=1', 303)
  const submission = parseWithZod(formData, { schema: FeedbackSchema })
  if (submission.status !== 'success') {
    return formReply({ result: submission.reply() })
  }
  const limitMessage = await publicFormLimitMessage(request)
  if (limitMessage) return rateLimitedFormReply(submission, limitMessage)
  const { email, message, rating } = submission.value
  await submitSupportMessage({
    source: 'feedback',
    email: email ?? null,
    // The table has no rating column: the subject carries it, where whoever reads the message sees it first.
    subject: rating ? `Rating: ${rating} of 5` : null,
    message,
  })
  return redirect('/feedback?sent=1', 303)
}

export default function Feedback() {
  const { sent, backTo } = useLoaderData<typeof loader>()
  return (
    <div className="focus-page">
      <header className="focus-page__header container">
        <Link to="/" aria-label="Stampwise home">
          <Logo />
        </Link>
        <Link to={backTo} className="back-link">
          <span aria-hidden="true">←</span> Back
        </Link>
      </header>
      <main className="focus-page__main container">
        <div className="panel focus-page__panel">
          <h1>Share your feedback</h1>
          {sent ? (
            <FeedbackSent />
          ) : (
            <>
              <p className="lead">
                What works well, what gets in your way, what you wish Stampwise did? Every message is read by the people
                who build it.
              </p>
              <FeedbackForm />
            </>
          )}
        </div>
        <p className="focus-page__note">
          Need an answer rather than to leave a note? <Link to="/contacts">Contact support</Link>. How we handle what
          you send: <Link to="/privacy-policy">privacy policy</Link>.
        </p>
      </main>
    </div>
  )
}

function FeedbackForm() {
  const actionData = useActionData<typeof action>()
  const [form, fields] = useSchemaForm(FeedbackSchema, { id: 'feedback-form', lastResult: actionData?.result })
  return (
    <Form method="POST" className="form" {...getFormProps(form)}>
      <HoneypotField />
      <FormErrors id={form.errorId} errors={form.errors} />
      <RadioGroupField meta={fields.rating} legend="How would you rate Stampwise? (optional)" options={RATINGS} />
      <TextareaField meta={fields.message} label="Your feedback" rows={6} />
      <InputField
        meta={fields.email}
        label="Your e-mail (optional)"
        type="email"
        autoComplete="email"
        hint="Add it if you would like a reply."
      />
      <div>
        <SubmitButton pendingLabel="Sending…">Send feedback</SubmitButton>
      </div>
    </Form>
  )
}

function FeedbackSent() {
  return (
    <div className="form-sent">
      <p role="status" className="form-message form-message--success">
        Thank you for your feedback! If you left your e-mail and asked something, we will reply within one working day.
      </p>
      <p>
        <Link to="/">Back to Stampwise</Link> or <Link to="/feedback">send more feedback</Link>
      </p>
    </div>
  )
}

export const meta: MetaFunction = () => [
  { title: 'Feedback — Stampwise' },
  { name: 'description', content: 'Tell the Stampwise team what works, what does not and what you would like next.' },
]
