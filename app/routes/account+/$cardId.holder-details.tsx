import { getCollectionProps, getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { useMemo } from 'react'
import { FieldErrors, FormErrors, RadioGroupField, SubmitButton, TextareaField } from '#app/components/forms.tsx'
import { SelectField } from '#app/components/select-field.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { CARD_NOT_FOUND, requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { PHONE_COUNTRIES, phoneCountryOptions } from '#app/services/holders/phone.server.ts'
import { countryOfTimeZone } from '#app/services/holders/zone-countries.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import {
  DEFAULT_AFTER_STAMPS,
  HOLDER_FIELD_LABELS,
  HOLDER_FIELDS,
  holderDetailsSettingsOf,
  holderDetailsSettingsSchema,
  MAX_AFTER_STAMPS,
  PRIVACY_NOTE_MAX,
  type HolderDetailsSettings,
} from '#app/utils/holder-details.ts'
import { getHolderDetailsSettings, saveHolderDetailsSettings } from '#models/holder-profile.server.ts'

export const handle: AccountHandle = { title: 'Holder details', back: 'previous' }

/**
 * What a card asks its holders (issue 34; DECISIONS.md "Holders who can be found again"): any of name, e-mail,
 * phone and birthday, at joining (optional fields under 'Get my card') or on the pass after the Nth stamp, beside the
 * owner's privacy note. No field is ever required to get a card. Not gated by the plan.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const found = await getHolderDetailsSettings({ userId, cardId: card.id })
  if (!found) throw notFound(CARD_NOT_FOUND)
  const settings = found.settings ?? {
    fields: [],
    when: 'after_stamps' as const,
    afterStamps: DEFAULT_AFTER_STAMPS,
    privacyNote: '',
    phoneCountry: countryOfTimeZone(found.timeZone) ?? 'US',
  }
  return { card: { id: card.id, title: card.title }, settings, countries: phoneCountryOptions() }
}

type ActionData = { result: SubmissionResult<string[]> }

export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const submission = parseWithZod(await readFormData(request), { schema: holderDetailsSettingsSchema(PHONE_COUNTRIES) })
  if (submission.status !== 'success') return formReply<ActionData>({ result: submission.reply() })
  // The card went between the check and the write: the same answer as a card that is not there.
  if (
    !(await saveHolderDetailsSettings({ userId, cardId: card.id, settings: holderDetailsSettingsOf(submission.value) }))
  )
    throw notFound(CARD_NOT_FOUND)
  return redirectWithToast(`/account/${card.id}/holder-details`, {
    message: submission.value.fields.length > 0 ? 'Holder details saved.' : 'Saved: holders are asked nothing.',
  })
}

const AFTER_OPTIONS = Array.from({ length: MAX_AFTER_STAMPS }, (_, index) => {
  const count = index + 1
  return [String(count), count === 1 ? 'After the 1st stamp' : `After the ${ordinal(count)} stamp`] as const
})

function ordinal(count: number) {
  if (count % 100 >= 11 && count % 100 <= 13) return `${count}th`
  return `${count}${({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[count % 10] ?? 'th'}`
}

export default function HolderDetailsSettingsPage() {
  const { card, settings, countries } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ActionData | undefined
  return (
    <>
      <h1>Holder details</h1>
      <p className="lead">
        Joining <strong>{card.title || 'your card'}</strong> stays one tap: nothing you choose here is required. A
        holder who gives an e-mail can get the card back on a new phone; a phone number or a name lets you find them at
        the counter; a birthday, a birthday message.
      </p>
      <section className="panel" aria-labelledby="holder-details-title">
        <h2 id="holder-details-title">What to ask</h2>
        <SettingsForm
          key={JSON.stringify(settings)}
          settings={settings}
          countries={countries}
          lastResult={actionData?.result}
        />
      </section>
      <p>
        <Link to={`/account/${card.id}/holders`}>Holders</Link>
      </p>
    </>
  )
}

type FormFields = Record<'when' | 'afterStamps' | 'privacyNote' | 'phoneCountry', string> & { fields: string[] }

function SettingsForm({
  settings,
  countries,
  lastResult,
}: {
  settings: { fields: string[]; when: string; afterStamps: number; privacyNote: string; phoneCountry: string }
  countries: (readonly [string, string])[]
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const schema = useMemo(() => holderDetailsSettingsSchema(countries.map(([code]) => code)), [countries])
  const [form, fields] = useForm<FormFields, HolderDetailsSettings>({
    id: 'holder-details',
    lastResult,
    defaultValue: {
      fields: settings.fields,
      when: settings.when,
      afterStamps: String(settings.afterStamps),
      privacyNote: settings.privacyNote,
      phoneCountry: settings.phoneCountry,
    },
    constraint: getZodConstraint(schema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const checkboxes = getCollectionProps(fields.fields, {
    type: 'checkbox',
    options: [...HOLDER_FIELDS],
    ariaAttributes: false,
  })
  return (
    <Form method="POST" className="form holder-details" {...getFormProps(form)}>
      <FormErrors id={form.errorId} errors={form.errors} />
      <fieldset className="field">
        <legend>Ask holders for</legend>
        {checkboxes.map(({ key, ...props }) => (
          <label key={key} className="checkbox">
            <input {...props} /> {HOLDER_FIELD_LABELS[props.value as keyof typeof HOLDER_FIELD_LABELS]}
          </label>
        ))}
        <p className="field-hint">A birthday is a day and a month: no year, so no one’s age is kept.</p>
        {/* An item's error (a value that is no field) belongs to the whole group. */}
        <FieldErrors id={fields.fields.errorId} errors={[...new Set(Object.values(fields.fields.allErrors).flat())]} />
      </fieldset>
      <RadioGroupField
        meta={fields.when}
        legend="When to ask"
        options={[
          { value: 'joining', label: 'At joining, under “Get my card”' },
          { value: 'after_stamps', label: 'On the card, after a few stamps' },
        ]}
      />
      <SelectField meta={fields.afterStamps} label="On the card" options={AFTER_OPTIONS} />
      <TextareaField
        meta={fields.privacyNote}
        label="Privacy note"
        rows={4}
        hint={`Shown beside the fields (at most ${PRIVACY_NOTE_MAX} characters): what you keep, why, and how to ask you to erase it.`}
      />
      <SelectField
        meta={fields.phoneCountry}
        label="Phone numbers without a country code are from"
        options={countries}
      />
      <SubmitButton pendingLabel="Saving…">Save holder details</SubmitButton>
    </Form>
  )
}

export const meta: MetaFunction = () => [{ title: 'Holder details — Stampwise' }]
