import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { z } from 'zod'
import { FormErrors, InputField, SubmitButton, TextareaField } from '#app/components/forms.tsx'
import { HoneypotField, isHoneypotFilled } from '#app/components/honeypot.tsx'
import { publicFormLimitMessage } from '#app/routes/__public-form.server.ts'
import { getEnv } from '#app/server/env.server.ts'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { rateLimitedFormReply } from '#app/server/rate-limit-reply.server.ts'
import { submitSupportMessage } from '#app/services/accounts/support.server.ts'
import { company } from '#app/utils/company.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'

const ContactSchema = z.object({
  name: z.string({ error: 'Enter your name' }).trim().min(1, 'Enter your name').max(100, 'Use 100 characters or fewer'),
  email: z.email({ error: 'Enter a valid email address' }).max(254, 'Enter a valid email address'),
  subject: z
    .string({ error: 'Enter a subject' })
    .trim()
    .min(1, 'Enter a subject')
    .max(150, 'Keep the subject to 150 characters or fewer'),
  message: z
    .string({ error: 'Write your message' })
    .trim()
    .min(1, 'Write your message')
    .max(5000, 'Keep your message to 5,000 characters or fewer'),
})

export async function loader({ request }: LoaderFunctionArgs) {
  const sent = new URL(request.url).searchParams.get('sent') === '1'
  return { sent, supportEmail: getEnv().SUPPORT_EMAIL }
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readFormData(request)
  if (isHoneypotFilled(formData)) return redirect('/contacts?sent=1', 303)
  const submission = parseWithZod(formData, { schema: ContactSchema })
  if (submission.status !== 'success') {
    return formReply({ result: submission.reply() })
  }
  const limitMessage = await publicFormLimitMessage(request)
  if (limitMessage) return rateLimitedFormReply(submission, limitMessage)
  await submitSupportMessage({ source: 'contacts', ...submission.value })
  return redirect('/contacts?sent=1', 303)
}

export default function Contacts() {
  const { sent, supportEmail } = useLoaderData<typeof loader>()
  return (
    <main className="container page">
      <header className="page-header">
        <p className="eyebrow">Support</p>
        <h1>Contact us</h1>
        <p className="lead">
          Questions about your cards, your plan or an invoice? Real people at {company.product} read every message and
          reply within one working day.
        </p>
      </header>
      <div className="contact-layout">
        <section className="panel" aria-labelledby="contact-form-title">
          <h2 id="contact-form-title">Send us a message</h2>
          {sent ? <ContactSent /> : <ContactForm />}
        </section>
        <aside className="contact-info" aria-label="Other ways to reach us">
          <h2>Other ways to reach us</h2>
          <dl>
            <dt>E-mail</dt>
            <dd>
              <a href={`mailto:${supportEmail}`}>{supportEmail}</a>
            </dd>
            <dt>Support hours</dt>
            <dd>Monday to Friday, 9:00 to 17:30 UK time</dd>
          </dl>
          <p>
            Many answers are already in our <a href="/#help">help center</a>. Have an idea or a complaint about the
            product? Tell us on the <Link to="/feedback">feedback page</Link>.
          </p>
        </aside>
      </div>
    </main>
  )
}

function ContactForm() {
  const actionData = useActionData<typeof action>()
  const [form, fields] = useSchemaForm(ContactSchema, { id: 'contact-form', lastResult: actionData?.result })
  return (
    <Form method="POST" className="form" {...getFormProps(form)}>
      <HoneypotField />
      <FormErrors id={form.errorId} errors={form.errors} />
      <InputField meta={fields.name} label="Your name" autoComplete="name" />
      <InputField
        meta={fields.email}
        label="Your e-mail"
        type="email"
        autoComplete="email"
        hint="We only use it to reply to you."
      />
      <InputField meta={fields.subject} label="Subject" />
      <TextareaField meta={fields.message} label="Message" rows={7} />
      <div>
        <SubmitButton pendingLabel="Sending…">Send message</SubmitButton>
      </div>
    </Form>
  )
}

function ContactSent() {
  return (
    <div className="form-sent">
      <p role="status" className="form-message form-message--success">
        Thank you, your message has been sent. We will reply to the address you gave within one working day.
      </p>
      <p>
        <Link to="/contacts">Send another message</Link>
      </p>
    </div>
  )
}

export const meta: MetaFunction = () => [
  { title: 'Contact us — Stampwise' },
  { name: 'description', content: 'Write to Stampwise support: we reply within one working day.' },
]
