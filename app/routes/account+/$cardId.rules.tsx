import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { FieldErrors, FormErrors, SubmitButton } from '#app/components/forms.tsx'
import { SelectField } from '#app/components/select-field.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { CARD_NOT_FOUND, requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import rulesStylesHref from '#app/styles/rules.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import {
  cardRulesOf,
  DAILY_CAP_LIMIT,
  MAX_PER_SCAN,
  PAUSE_PRESETS,
  pauseFields,
  pauseText,
  StampingRulesSchema,
  type StampingRulesInput,
} from '#app/utils/stamping-rules.ts'
import { getCardRules, saveCardRules } from '#models/card-rules.server.ts'

export const handle: AccountHandle = { title: 'Stamping rules', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: rulesStylesHref }]

/**
 * A card's stamping rules (docs/product/staff-locations-rules.md): most stamps in one scan, a pause per
 * pass between stamps and a daily cap per pass. Staff meet them at the counter; the owner may override a refusal on
 * the scan page with a tick, which is recorded. Not gated by the plan: the rules protect the card, not a feature.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const rules = await getCardRules({ userId, cardId: card.id })
  // Deleted between the two reads: the same answer as a card that is not there.
  if (!rules) throw notFound(CARD_NOT_FOUND)
  return { card: { id: card.id, title: card.title }, rules }
}

type ActionData = { result: SubmissionResult<string[]> }

export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const submission = parseWithZod(await readFormData(request), { schema: StampingRulesSchema })
  if (submission.status !== 'success') return formReply<ActionData>({ result: submission.reply() })
  // The card went between the check and the write: the same answer as a card that is not there.
  if (!(await saveCardRules({ userId, cardId: card.id, ...cardRulesOf(submission.value) })))
    throw notFound(CARD_NOT_FOUND)
  return redirectWithToast(`/account/${card.id}/rules`, { message: 'Stamping rules saved.' })
}

const PER_SCAN_OPTIONS = Array.from({ length: MAX_PER_SCAN }, (_, index) => {
  const count = index + 1
  return [String(count), count === 1 ? '1 stamp' : `${count} stamps`] as const
})
const PAUSE_OPTIONS = [
  ...PAUSE_PRESETS.map((minutes) => [String(minutes), pauseText(minutes)] as const),
  ['custom', 'Custom…'] as const,
]
const UNIT_OPTIONS = [
  ['minutes', 'Minutes'],
  ['hours', 'Hours'],
  ['days', 'Days'],
] as const

export default function StampingRules() {
  const { card, rules } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ActionData | undefined
  return (
    <>
      <h1>Stamping rules</h1>
      <p className="lead">
        Limits for stamping <strong>{card.title || 'your card'}</strong>, so a card cannot be filled at once. When a
        rule refuses a stamp, the scan page says why and when the next one is possible; you (not your staff) may tick
        “Override” there and stamp anyway, and the override is recorded.
      </p>
      <section className="panel" aria-labelledby="rules-title">
        <h2 id="rules-title">Rules</h2>
        <RulesForm key={JSON.stringify(rules)} rules={rules} lastResult={actionData?.result} />
      </section>
      <p>
        <Link to={`/account/${card.id}/scan`}>Stamp a card</Link>
      </p>
    </>
  )
}

function RulesForm({
  rules,
  lastResult,
}: {
  rules: { maxStampsPerScan: number; stampPauseMinutes: number; dailyStampCap: number | null }
  lastResult: SubmissionResult<string[]> | undefined
}) {
  // What the browser sends: text in every field (the schema makes numbers of it).
  const [form, fields] = useForm<
    Record<'maxPerScan' | 'pause' | 'customAmount' | 'customUnit' | 'dailyCap', string>,
    StampingRulesInput
  >({
    id: 'stamping-rules',
    lastResult,
    defaultValue: {
      maxPerScan: String(rules.maxStampsPerScan),
      ...pauseFields(rules.stampPauseMinutes),
      dailyCap: rules.dailyStampCap === null ? '' : String(rules.dailyStampCap),
    },
    constraint: getZodConstraint(StampingRulesSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: StampingRulesSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const { key: amountKey, ...amountProps } = getInputProps(fields.customAmount, {
    type: 'number',
    ariaDescribedBy: `${fields.customAmount.id}-hint`,
  })
  const { key: capKey, ...capProps } = getInputProps(fields.dailyCap, {
    type: 'number',
    ariaDescribedBy: `${fields.dailyCap.id}-hint`,
  })
  return (
    <Form method="POST" className="form stamping-rules" {...getFormProps(form)}>
      <FormErrors id={form.errorId} errors={form.errors} />
      <SelectField meta={fields.maxPerScan} label="Most stamps in one scan" options={PER_SCAN_OPTIONS} />
      <fieldset className="stamping-rules__pause">
        <legend>Pause between two stamps of one holder</legend>
        <p className="field-hint">
          After a stamp, the same holder’s card can be stamped again only once the pause has passed (at most 7 days).
          Undoing a stamp gives the pause back to the stamp before it.
        </p>
        <SelectField meta={fields.pause} label="Pause" options={PAUSE_OPTIONS} />
        <div className="stamping-rules__custom">
          <p id={`${fields.customAmount.id}-hint`} className="field-hint">
            With “Custom…”: how long, in minutes, hours or days.
          </p>
          <div className="field">
            <label htmlFor={fields.customAmount.id}>Custom pause</label>
            <input key={amountKey} {...amountProps} inputMode="numeric" />
            <FieldErrors id={fields.customAmount.errorId} errors={fields.customAmount.errors} />
          </div>
          <SelectField meta={fields.customUnit} label="Unit" options={UNIT_OPTIONS} />
        </div>
      </fieldset>
      <div className="field">
        <label htmlFor={fields.dailyCap.id}>Most stamps a day for one holder</label>
        <p id={`${fields.dailyCap.id}-hint`} className="field-hint">
          1 to {DAILY_CAP_LIMIT}; leave it empty for no limit. A day runs from midnight to midnight in your business’s
          time zone.
        </p>
        <input key={capKey} {...capProps} inputMode="numeric" />
        <FieldErrors id={fields.dailyCap.errorId} errors={fields.dailyCap.errors} />
      </div>
      <SubmitButton pendingLabel="Saving…">Save rules</SubmitButton>
    </Form>
  )
}

export const meta: MetaFunction = () => [{ title: 'Stamping rules — Stampwise' }]
