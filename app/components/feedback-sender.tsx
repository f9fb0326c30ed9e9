import { getFormProps, getTextareaProps } from '@conform-to/react'
import { useFetcher, useLocation } from '@remix-run/react'
import { useEffect, useState } from 'react'
import {
  AccountFeedbackSchema,
  CONTACT_US_PATH,
  FEEDBACK_SENT_MESSAGE,
  type FeedbackAnswer,
} from '#app/utils/account-feedback.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { FieldErrors, FormErrors } from './forms.tsx'

/**
 * The header's 'Feedback' popover: a message to support from any /account page, posted to the Feedback form's
 * action. With JavaScript a fetcher sends it and the page stays; without, the form posts with `redirectTo` (this
 * page) and the owner comes back here with a toast.
 */
export function FeedbackSender() {
  const fetcher = useFetcher<FeedbackAnswer>()
  const { pathname, search } = useLocation()
  const hydrated = useHydrated()
  const result = fetcher.data?.result
  const [form, fields] = useSchemaForm(AccountFeedbackSchema, { id: 'feedback-sender', lastResult: result })
  const pending = fetcher.state !== 'idle'
  const sent = !pending && fetcher.data?.sent === true
  const { key, ...messageProps } = getTextareaProps(fields.message)
  return (
    <details className="feedback-sender">
      <summary className="feedback-sender__toggle">Feedback</summary>
      <div className="feedback-sender__panel">
        <fetcher.Form method="POST" action={CONTACT_US_PATH} className="form" {...getFormProps(form)}>
          {hydrated ? (
            <input type="hidden" name="intent" value="inline" />
          ) : (
            <input type="hidden" name="redirectTo" value={`${pathname}${search}`} />
          )}
          <FormErrors id={form.errorId} errors={form.errors} />
          <div className="field">
            <label htmlFor={fields.message.id}>Your feedback</label>
            <textarea key={key} {...messageProps} rows={4} />
            <FieldErrors id={fields.message.errorId} errors={fields.message.errors} />
          </div>
          {sent ? (
            <p role="status" className="form-message form-message--success">
              {FEEDBACK_SENT_MESSAGE}
            </p>
          ) : null}
          <button
            type="submit"
            className="button"
            aria-disabled={pending || undefined}
            onClick={(event) => {
              if (pending) event.preventDefault()
            }}
          >
            {pending ? 'Sending…' : 'Send'}
          </button>
        </fetcher.Form>
      </div>
    </details>
  )
}

/** False in the server's HTML and until scripts run: what renders then must work as plain HTML. */
function useHydrated() {
  const [hydrated, setHydrated] = useState(false)
  useEffect(() => setHydrated(true), [])
  return hydrated
}
