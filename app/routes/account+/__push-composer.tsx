import {
  getFormProps,
  getInputProps,
  getTextareaProps,
  useForm,
  type FieldMetadata,
  type SubmissionResult,
} from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from '@remix-run/react'
import { type z } from 'zod'
import { FieldErrors, FormErrors, SubmitButton } from '#app/components/forms.tsx'
import { PUSH_BODY_MAX, PUSH_TITLE_MAX, PushMessageSchema } from '#app/utils/push-message.ts'

/**
 * The push composer shared by …/push_notification/create (blank, or `?draft=` to edit a draft) and
 * …/template/{templateId}/create (filled from a template): title, message and link with character counters, a
 * preview of the notification that follows the typing, and 'Also save as a template'. The server renders the
 * counters and preview from the current values (the defaults, or what was sent back with a 400), so they are right
 * without JavaScript too.
 */
export const pushPath = (cardId: string, rest = '') => `/account/${cardId}/push_notification${rest}`
export const confirmPath = (cardId: string, notificationId: string) => pushPath(cardId, `/confirm/${notificationId}`)

export type PushCard = { id: string; title: string; businessName: string; backgroundColor: string; textColor: string }
export type ComposerValues = { title: string; body: string; link: string }
export type ComposerActionData = { result: SubmissionResult<string[]> }

export function PushComposer({
  card,
  values,
  draftId,
  lastResult,
}: {
  card: PushCard
  values: ComposerValues
  draftId: string | null
  lastResult: SubmissionResult<string[]> | undefined
}) {
  // useSchemaForm's set-up, plus the defaults a draft or template brings.
  const [form, fields] = useForm<z.input<typeof PushMessageSchema>, z.output<typeof PushMessageSchema>>({
    id: 'push-composer',
    lastResult,
    defaultValue: values,
    constraint: getZodConstraint(PushMessageSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: PushMessageSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  // conform keeps `value` current on every input event, and starts it from the defaults or the server's answer. A
  // field sent twice comes back from the server as a list: the preview shows it as empty (the error says why).
  const title = textOf(fields.title.value)
  const body = textOf(fields.body.value)
  const link = textOf(fields.link.value)
  const { key: linkKey, ...linkProps } = getInputProps(fields.link, {
    type: 'url',
    ariaDescribedBy: `${fields.link.id}-hint`,
  })
  const { key: saveKey, ...saveProps } = getInputProps(fields.saveAsTemplate, { type: 'checkbox' })
  return (
    <div className="push-compose">
      <Form method="POST" className="form push-compose__form" {...getFormProps(form)}>
        {draftId ? <input type="hidden" name="draft" value={draftId} /> : null}
        <FormErrors id={form.errorId} errors={form.errors} />
        <MessageTextFields title={fields.title} body={fields.body} rows={4} />
        <div className="field">
          <label htmlFor={fields.link.id}>Link (optional)</label>
          <p id={`${fields.link.id}-hint`} className="field-hint">
            Opens when a holder taps the notification; without one, their card opens.
          </p>
          <input key={linkKey} {...linkProps} inputMode="url" placeholder="https://" autoComplete="url" />
          <FieldErrors id={fields.link.errorId} errors={fields.link.errors} />
        </div>
        <label className="push-compose__checkbox" htmlFor={fields.saveAsTemplate.id}>
          <input key={saveKey} {...saveProps} />
          <span>Also save as a template</span>
        </label>
        <FieldErrors id={fields.saveAsTemplate.errorId} errors={fields.saveAsTemplate.errors} />
        <SubmitButton pendingLabel="Saving…">Continue</SubmitButton>
      </Form>
      <NotificationPreview card={card} title={title} body={body} link={link} />
    </div>
  )
}

/** 'n / max' under a field, red past the limit (also the automations page's words). */
function CharacterCount({ id, length, max }: { id: string; length: number; max: number }) {
  return (
    <p id={id} className={length > max ? 'char-count char-count--over' : 'char-count'}>
      {`${length} / ${max}`}
    </p>
  )
}

/** A field's current text; a field sent twice comes back as a list, shown as empty (its error says why). */
export const textOf = (value: unknown) => (typeof value === 'string' ? value : '')

/**
 * A message's title and body with their counters and errors: the composer's, and each automatic message's
 * (/account/{cardId}/automations), which have the same limits.
 */
export function MessageTextFields<Form extends Record<string, unknown>>({
  title,
  body,
  rows,
}: {
  title: FieldMetadata<string, Form, string[]>
  body: FieldMetadata<string, Form, string[]>
  rows: number
}) {
  const { key: titleKey, ...titleProps } = getInputProps(title, { type: 'text', ariaDescribedBy: `${title.id}-count` })
  const { key: bodyKey, ...bodyProps } = getTextareaProps(body, { ariaDescribedBy: `${body.id}-count` })
  return (
    <>
      <div className="field">
        <label htmlFor={title.id}>Title</label>
        <input key={titleKey} {...titleProps} autoComplete="off" />
        <CharacterCount id={`${title.id}-count`} length={textOf(title.value).length} max={PUSH_TITLE_MAX} />
        <FieldErrors id={title.errorId} errors={title.errors} />
      </div>
      <div className="field">
        <label htmlFor={body.id}>Message</label>
        <textarea key={bodyKey} {...bodyProps} rows={rows} />
        <CharacterCount id={`${body.id}-count`} length={textOf(body.value).length} max={PUSH_BODY_MAX} />
        <FieldErrors id={body.errorId} errors={body.errors} />
      </div>
    </>
  )
}

/** The notification as a holder's phone shows it: the business (its colours and initial as the icon), title, text. */
export function NotificationPreview({
  card,
  title,
  body,
  link,
}: {
  card: PushCard
  title: string
  body: string
  link?: string | null
}) {
  const sender = card.businessName || card.title || 'Your business'
  return (
    <figure className="push-preview" aria-label="Notification preview">
      <div className="push-preview__notification">
        <span
          className="push-preview__icon"
          style={{ backgroundColor: card.backgroundColor, color: card.textColor }}
          aria-hidden="true"
        >
          {sender.trim().charAt(0).toUpperCase() || 'S'}
        </span>
        <div className="push-preview__text">
          <p className="push-preview__sender">{`${sender} · now`}</p>
          <p className={title.trim() ? 'push-preview__title' : 'push-preview__title push-preview--empty'}>
            {title.trim() || 'Your title'}
          </p>
          <p className={body.trim() ? 'push-preview__body' : 'push-preview__body push-preview--empty'}>
            {body.trim() || 'Your message'}
          </p>
          {link?.trim() ? <p className="push-preview__link">{`Opens ${link.trim()}`}</p> : null}
        </div>
      </div>
      <figcaption>How holders see it</figcaption>
    </figure>
  )
}
