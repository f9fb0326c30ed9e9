import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form, Link } from '@remix-run/react'
import { FieldErrors, FormErrors } from '#app/components/forms.tsx'
import { IntentButton } from '#app/components/intent-button.tsx'
import { SelectField } from '#app/components/select-field.tsx'
import {
  automationSchema,
  DELIVERY_RULES_INTENT,
  DeliveryRulesSchema,
  STAMP_PUSH_INTENT,
  StampPushSchema,
  type AutomationInput,
} from '#app/utils/automation-schemas.ts'
import {
  AUTOMATION_DAYS_MAX,
  AUTOMATION_DAYS_MIN,
  AUTOMATION_WORDS,
  DAILY_CAP_MAX,
  DEFAULT_QUIET_END,
  DEFAULT_QUIET_START,
  isWaitingKind,
  minutesToClock,
  WEEKLY_CAP_MAX,
  type AutomationSetting,
} from '#app/utils/automations.ts'
import { MessageTextFields, NotificationPreview, textOf, type PushCard } from './__push-composer.tsx'

/**
 * The forms of /account/{cardId}/automations; each posts its own `intent` (an automatic message's kind, the stamp
 * push, or quiet hours and caps) and shows only its own answer. The server renders the counters and the preview from
 * the stored words (or what came back with a 400), so they are right without JavaScript; with it they follow typing.
 */
type LastResult = SubmissionResult<string[]> | null | undefined

export function AutomationForm({
  card,
  setting,
  lastResult,
}: {
  card: PushCard
  setting: AutomationSetting
  lastResult: LastResult
}) {
  const { kind } = setting
  const schema = automationSchema(kind)
  const [form, fields] = useForm<AutomationInput>({
    id: `automation-${kind}`,
    lastResult,
    defaultValue: {
      enabled: setting.enabled,
      title: setting.title,
      body: setting.body,
      ...(setting.days === null ? {} : { days: setting.days }),
    },
    constraint: getZodConstraint(schema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const title = textOf(fields.title.value)
  const body = textOf(fields.body.value)
  const { key: enabledKey, ...enabledProps } = getInputProps(fields.enabled, { type: 'checkbox' })
  const { key: daysKey, ...daysProps } = getInputProps(fields.days, {
    type: 'number',
    ariaDescribedBy: `${fields.days.id}-hint`,
  })
  const words = AUTOMATION_WORDS[kind]
  return (
    <div className="push-compose automation">
      <Form method="POST" className="form push-compose__form" {...getFormProps(form)}>
        <input type="hidden" name="intent" value={kind} />
        <p className="field-hint">{words.when}.</p>
        <FormErrors id={form.errorId} errors={form.errors} />
        <label className="push-compose__checkbox" htmlFor={fields.enabled.id}>
          <input key={enabledKey} {...enabledProps} />
          <span>Send “{words.name}”</span>
        </label>
        <FieldErrors id={fields.enabled.errorId} errors={fields.enabled.errors} />
        {isWaitingKind(kind) ? (
          <div className="field">
            <label htmlFor={fields.days.id}>After how many days</label>
            <p id={`${fields.days.id}-hint`} className="field-hint">
              {AUTOMATION_DAYS_MIN} to {AUTOMATION_DAYS_MAX} days.
            </p>
            <input key={daysKey} {...daysProps} inputMode="numeric" className="automation__days" />
            <FieldErrors id={fields.days.errorId} errors={fields.days.errors} />
          </div>
        ) : null}
        <MessageTextFields title={fields.title} body={fields.body} rows={3} />
        <IntentButton intent={kind} pendingLabel="Saving…">
          Save “{words.name}”
        </IntentButton>
      </Form>
      <NotificationPreview card={card} title={title} body={body} />
    </div>
  )
}

export function StampPushForm({ stampPush, lastResult }: { stampPush: boolean; lastResult: LastResult }) {
  const [form, fields] = useForm({
    id: 'stamp-push-form',
    lastResult,
    defaultValue: { stampPush },
    constraint: getZodConstraint(StampPushSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: StampPushSchema }),
  })
  const { key, ...checkboxProps } = getInputProps(fields.stampPush, { type: 'checkbox' })
  return (
    <Form method="POST" className="form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value={STAMP_PUSH_INTENT} />
      <FormErrors id={form.errorId} errors={form.errors} />
      <label className="push-compose__checkbox" htmlFor={fields.stampPush.id}>
        <input key={key} {...checkboxProps} />
        <span>Send holders a push when their card is stamped</span>
      </label>
      <FieldErrors id={fields.stampPush.errorId} errors={fields.stampPush.errors} />
      <p className="field-hint">
        It goes only to the holder stamped, at once, and does not count toward your monthly messages or the limits
        below. When one stamp is left, “One stamp to go” goes instead if it is on.
      </p>
      <IntentButton intent={STAMP_PUSH_INTENT} pendingLabel="Saving…">
        Save stamp push
      </IntentButton>
    </Form>
  )
}

const DAILY_OPTIONS = Array.from({ length: DAILY_CAP_MAX + 1 }, (_, count) => [String(count), capText(count)] as const)
const WEEKLY_OPTIONS = Array.from(
  { length: WEEKLY_CAP_MAX + 1 },
  (_, count) => [String(count), capText(count)] as const,
)

function capText(count: number) {
  return count === 0 ? 'None' : count === 1 ? '1 message' : `${count} messages`
}

export function DeliveryRulesForm({
  rules,
  timeZone,
  lastResult,
}: {
  rules: { quietStart: number; quietEnd: number; dailyCap: number; weeklyCap: number }
  timeZone: string
  lastResult: LastResult
}) {
  const quiet = rules.quietStart !== rules.quietEnd
  const [form, fields] = useForm({
    id: 'delivery-rules-form',
    lastResult,
    defaultValue: {
      quietHours: quiet,
      // No quiet hours stored (start = end): the usual ones are offered for when the box is ticked again.
      quietStart: minutesToClock(quiet ? rules.quietStart : DEFAULT_QUIET_START),
      quietEnd: minutesToClock(quiet ? rules.quietEnd : DEFAULT_QUIET_END),
      dailyCap: String(rules.dailyCap),
      weeklyCap: String(rules.weeklyCap),
    },
    constraint: getZodConstraint(DeliveryRulesSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: DeliveryRulesSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const { key: quietKey, ...quietProps } = getInputProps(fields.quietHours, { type: 'checkbox' })
  const { key: startKey, ...startProps } = getInputProps(fields.quietStart, { type: 'time' })
  const { key: endKey, ...endProps } = getInputProps(fields.quietEnd, { type: 'time' })
  return (
    <Form method="POST" className="form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value={DELIVERY_RULES_INTENT} />
      <FormErrors id={form.errorId} errors={form.errors} />
      <p className="field-hint">
        Times and days are in {timeZone} (<Link to="/account/profile">change your time zone</Link>).
      </p>
      <h3>Quiet hours</h3>
      <label className="push-compose__checkbox" htmlFor={fields.quietHours.id}>
        <input key={quietKey} {...quietProps} />
        <span>Hold automatic messages during quiet hours</span>
      </label>
      <FieldErrors id={fields.quietHours.errorId} errors={fields.quietHours.errors} />
      <p className="field-hint">
        A welcome, “reward waiting” or “we miss you” due then goes when they end. The stamp push, “one stamp to go” and
        “reward earned” go at once: the holder is at the counter.
      </p>
      <div className="automation__times">
        <div className="field">
          <label htmlFor={fields.quietStart.id}>From</label>
          <input key={startKey} {...startProps} />
          <FieldErrors id={fields.quietStart.errorId} errors={fields.quietStart.errors} />
        </div>
        <div className="field">
          <label htmlFor={fields.quietEnd.id}>Until</label>
          <input key={endKey} {...endProps} />
          <FieldErrors id={fields.quietEnd.errorId} errors={fields.quietEnd.errors} />
        </div>
      </div>
      <h3>Most automatic messages per holder</h3>
      <p className="field-hint">
        Welcome, “one stamp to go”, “reward waiting” and “we miss you” count; one over a limit is not sent. The stamp
        push and “reward earned” do not count.
      </p>
      <SelectField meta={fields.dailyCap} label="A day" options={DAILY_OPTIONS} />
      <SelectField meta={fields.weeklyCap} label="A week (that day and the 6 before)" options={WEEKLY_OPTIONS} />
      <IntentButton intent={DELIVERY_RULES_INTENT} pendingLabel="Saving…">
        Save quiet hours and limits
      </IntentButton>
    </Form>
  )
}
