import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useSubmit, type MetaFunction } from '@remix-run/react'
import { useEffect, useState } from 'react'
import { FieldErrors, FormErrors, UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { IntentButton } from '#app/components/intent-button.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { requirePushAccess } from '#app/services/billing/plan-gate.server.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { noReachOf } from '#app/services/push/card-reach.server.ts'
import {
  getPushConfirmData,
  NO_AUDIENCE,
  NO_QUOTA_LEFT,
  NO_RECIPIENTS,
  notificationView,
  sendOwnerNotification,
} from '#app/services/push/push-send.server.ts'
import { scheduleOwnerBroadcast } from '#app/services/push/scheduled-broadcasts.server.ts'
import pushStylesHref from '#app/styles/push.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { AUDIENCE_MESSAGE, AUDIENCE_OPTIONS, audienceText, parseAudience } from '#app/utils/audience.ts'
import { formatLocalDateTime } from '#app/utils/local-time.ts'
import { formatDate } from '#app/utils/plan-format.ts'
import {
  CHANNEL_WORDS,
  channelCountsText,
  channelsUsed,
  reachText,
  type ChannelBreakdown,
} from '#app/utils/push-channels.ts'
import { pushStatusText } from '#app/utils/push-status.ts'
import {
  localInputValue,
  SCHEDULE_MAX_AHEAD_DAYS,
  SCHEDULE_MIN_AHEAD_MS,
  scheduleSchema,
} from '#app/utils/schedule-time.ts'
import { audienceHasDevice } from '#models/holder-audience.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'
import { NoReachNotice } from './__no-reach-notice.tsx'
import { pushCard } from './__push-composer.server.ts'
import { confirmPath, NotificationPreview, pushPath } from './__push-composer.tsx'
import type { DeliveryProgress as DeliveryCounts } from '#models/notification.server.ts'

export const handle: AccountHandle = { title: 'Push-notification', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: pushStylesHref }]

/**
 * …/confirm/{notificationId}. A draft: its preview, the audience to send it to (`?audience=`, a GET form, so it works
 * without JavaScript) with the holders and devices it reaches per channel, the quota, 'Edit', 'Send' and 'Schedule'
 * (gated like the other push pages). A scheduled message: when it goes, and the list to cancel it from. Once sent:
 * its delivery progress, which the page polls with JavaScript and a reload shows without. The progress of a sent
 * message stays visible even when the gate would refuse now (the plan ended meanwhile): it sends nothing, and the
 * history is never gated either. An audience the list does not have is a 400 that shows all holders and says why.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const asked = new URL(request.url).searchParams.get('audience')
  const audience = parseAudience(asked, 'all')
  const [confirm, timeZone] = await Promise.all([
    getPushConfirmData({
      ownerId: userId,
      cardId: card.id,
      notificationId: params.notificationId ?? '',
      audience: audience ?? 'all',
    }),
    getOwnerTimeZone(userId),
  ])
  if (!confirm) throw notFound('Message not found')
  const { notification, recipients, reach, quota, holders } = confirm
  if (notification.status === 'draft') await requirePushAccess(userId)
  const draft = notification.status === 'draft'
  // A card that reaches nobody at all gets the notice of what raises reach (said once, instead of a warning here).
  const noReach =
    draft && recipients === 0 && confirm.audience === 'all'
      ? await noReachOf({ cardId: card.id, ownerId: userId })
      : null
  const warnings = !draft
    ? []
    : [
        recipients === 0 && !noReach ? (confirm.audience === 'all' ? NO_RECIPIENTS : NO_AUDIENCE) : null,
        quota.totalLeft <= 0 ? NO_QUOTA_LEFT : null,
      ]
  const audienceError =
    audience === null
      ? `There is no audience “${(asked ?? '').slice(0, 40)}”. ${AUDIENCE_MESSAGE}. Showing all holders.`
      : null
  const now = Date.now()
  return data(
    {
      card: pushCard(card),
      notification: notificationView(notification),
      audience: confirm.audience,
      audienceError,
      holders,
      noReach,
      recipients,
      reach,
      quota,
      timeZone,
      schedule: {
        min: localInputValue(new Date(now + SCHEDULE_MIN_AHEAD_MS + 60_000), timeZone),
        max: localInputValue(new Date(now + SCHEDULE_MAX_AHEAD_DAYS * 86_400_000), timeZone),
      },
      warnings: warnings.filter((warning): warning is string => warning !== null),
      // The Send refusal the notice stands for: a Send refused for it makes the notice the alert, not a second text.
      noReachRefusal: noReach ? NO_RECIPIENTS : null,
    },
    audienceError ? { status: 400 } : undefined,
  )
}

type ActionData = { message?: string; result?: SubmissionResult<string[]> }

const SCHEDULED_TO_NOBODY_YET = 'Nobody can receive it yet: it goes to those who can be reached by then.'

/**
 * 'Send' takes the quota and queues the message to the chosen audience, then back here (post/redirect/get) to watch
 * the progress. 'Schedule' stores it for a time in the business's zone, taking no quota yet, then on to the list of
 * scheduled messages. A form without an intent is a Send to all holders (what this page posted before audiences).
 */
export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  await requirePushAccess(userId)
  const cardId = params.cardId ?? ''
  const notificationId = params.notificationId ?? ''
  const formData = await readFormData(request)
  const intent = formData.get('intent') ?? 'send'
  if (intent === 'schedule') return scheduleAction({ userId, cardId, notificationId, formData })
  if (intent !== 'send') return data<ActionData>({ message: UNREADABLE_SUBMISSION }, { status: 400 })
  const audience = parseAudience(formData.get('audience'), 'all')
  if (!audience) return data<ActionData>({ message: AUDIENCE_MESSAGE }, { status: 400 })
  const result = await sendOwnerNotification({ ownerId: userId, cardId, notificationId, audience })
  if (!result.ok) {
    if (result.status === 404) throw notFound(result.message)
    return data<ActionData>({ message: result.message }, { status: result.status })
  }
  const devices = result.notification.progress.total
  return redirectWithToast(confirmPath(cardId, result.notification.id), {
    message: `Sending to ${devices === 1 ? '1 device' : `${devices} devices`}.`,
  })
}

async function scheduleAction({
  userId,
  cardId,
  notificationId,
  formData,
}: {
  userId: string
  cardId: string
  notificationId: string
  formData: FormData
}) {
  const timeZone = await getOwnerTimeZone(userId)
  const submission = parseWithZod(formData, { schema: scheduleSchema(timeZone, new Date()) })
  if (submission.status !== 'success') return formReply<ActionData>({ result: submission.reply() })
  const { when, audience } = submission.value
  const outcome = await scheduleOwnerBroadcast({
    ownerId: userId,
    cardId,
    notificationId,
    scheduledFor: when,
    audience,
  })
  if (outcome === 'not_found') throw notFound('Message not found')
  if (outcome === 'not_draft') {
    return redirectWithToast(confirmPath(cardId, notificationId), {
      message: 'This message was scheduled or sent already.',
      type: 'info',
    })
  }
  // Reach may grow by then, so a message to nobody yet is not refused; it is said (issue 30, item 6).
  const reachable = await audienceHasDevice({ cardId, ownerId: userId, audience })
  const scheduled = `Scheduled for ${formatLocalDateTime(when, timeZone)} (${timeZone}).`
  return redirectWithToast(pushPath(cardId, '/scheduled'), {
    message: reachable ? scheduled : `${scheduled} ${SCHEDULED_TO_NOBODY_YET}`,
    type: reachable ? 'success' : 'info',
  })
}

export default function ConfirmPush() {
  const loaded = useLoaderData<typeof loader>()
  const { card, notification } = loaded
  return (
    <>
      <h1>Push-notification</h1>
      <div className="push-confirm">
        <NotificationPreview card={card} title={notification.title} body={notification.body} link={notification.link} />
        {notification.status === 'draft' ? (
          <DraftDetails />
        ) : notification.status === 'scheduled' ||
          notification.status === 'cancelled' ||
          notification.status === 'skipped' ? (
          <ScheduledDetails />
        ) : (
          <DeliveryProgress cardId={card.id} notification={notification} />
        )}
      </div>
    </>
  )
}

/** The audience's GET form (changing the select shows its reach at once with JavaScript), then Send and Schedule. */
function DraftDetails() {
  const {
    card,
    notification,
    audience,
    audienceError,
    holders,
    noReach,
    recipients,
    reach,
    quota,
    warnings,
    noReachRefusal,
    timeZone,
    schedule,
  } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ActionData | undefined
  const refused = actionData?.message
  const submit = useSubmit()
  const [form, fields] = useForm({
    id: 'schedule',
    lastResult: actionData?.result,
    constraint: getZodConstraint(scheduleSchema(timeZone, new Date())),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: scheduleSchema(timeZone, new Date()) }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const { key: whenKey, ...whenProps } = getInputProps(fields.when, {
    type: 'datetime-local',
    ariaDescribedBy: `${fields.when.id}-hint`,
  })
  return (
    <section className="push-confirm__details" aria-label="Before sending">
      <Form
        method="GET"
        className="push-audience"
        onChange={(event) => submit(event.currentTarget, { replace: true, preventScrollReset: true })}
      >
        <div className="field">
          <label htmlFor="audience">Send to</label>
          <select id="audience" name="audience" defaultValue={audience} key={audience}>
            {AUDIENCE_OPTIONS.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button--ghost">
          Show reach
        </button>
      </Form>
      {audienceError ? (
        <p role="alert" className="form-message form-message--error">
          {audienceError}
        </p>
      ) : null}
      <div aria-live="polite" className="push-confirm__reach">
        {holders ? (
          <p className="push-confirm__holders">{`${audienceText(audience)}: ${holdersText(holders.inAudience)}, ${holders.reached} of them reached.`}</p>
        ) : null}
        <p>{reachText(reach)}</p>
      </div>
      <dl className="facts">
        <dt>Used this month</dt>
        <dd>{`${quota.usedThisMonth} of ${quota.monthlyLimit} messages`}</dd>
        <dt>Left this month</dt>
        <dd>{quota.monthlyLeft}</dd>
        <dt>Additional messages</dt>
        <dd>{quota.additionalLeft}</dd>
      </dl>
      {/* A refusal the page says already (a Send posted as the last holder left, say) is not said twice: the
          notice or warning that says it becomes the alert. */}
      {noReach ? <NoReachNotice noReach={noReach} alert={refused !== undefined && refused === noReachRefusal} /> : null}
      {warnings.map((warning) => (
        <p key={warning} className="notice-panel" role={refused === warning ? 'alert' : undefined}>
          {warning}
        </p>
      ))}
      {refused && refused !== noReachRefusal && !warnings.includes(refused) ? (
        <div role="alert" className="form-message form-message--error">
          <p>{actionData.message}</p>
        </div>
      ) : null}
      <div className="actions">
        <Form method="POST">
          <input type="hidden" name="intent" value="send" />
          <input type="hidden" name="audience" value={audience} />
          {/* Disabled while nobody can be reached: the notice or warning above says why, once. */}
          <IntentButton intent="send" pendingLabel="Sending…" disabled={recipients === 0}>
            Send
          </IntentButton>
        </Form>
        <Link className="button button--ghost" to={`${pushPath(card.id, '/create')}?draft=${notification.id}`}>
          Edit
        </Link>
      </div>
      <Form method="POST" className="form push-schedule" {...getFormProps(form)}>
        <h2>Or schedule it</h2>
        <input type="hidden" name="intent" value="schedule" />
        <input type="hidden" name="audience" value={audience} />
        <FormErrors id={form.errorId} errors={form.errors} />
        {/* The audience comes from the select above; a forged one is refused here. */}
        <FormErrors id={fields.audience.errorId} errors={fields.audience.errors} />
        <div className="field">
          <label htmlFor={fields.when.id}>Date and time</label>
          <p id={`${fields.when.id}-hint`} className="field-hint">
            {`In your time zone, ${timeZone}; up to ${SCHEDULE_MAX_AHEAD_DAYS} days ahead. The quota is taken when it goes out.`}
          </p>
          <input key={whenKey} {...whenProps} min={schedule.min} max={schedule.max} step={60} />
          <FieldErrors id={fields.when.errorId} errors={fields.when.errors} />
        </div>
        <IntentButton intent="schedule" pendingLabel="Scheduling…" className="button button--ghost">
          Schedule
        </IntentButton>
      </Form>
      <p>
        <Link to={pushPath(card.id, '/scheduled')}>Scheduled messages</Link>
      </p>
    </section>
  )
}

const holdersText = (count: number) => (count === 1 ? '1 holder' : `${count} holders`)

/** A scheduled message (when and to whom), or one that will not go (cancelled, or skipped with why). */
function ScheduledDetails() {
  const { card, notification, audience, reach, timeZone } = useLoaderData<typeof loader>()
  const when = notification.scheduledFor ? formatLocalDateTime(new Date(notification.scheduledFor), timeZone) : ''
  return (
    <section className="push-confirm__details" aria-label="Schedule">
      {notification.status === 'scheduled' ? (
        <>
          <p>{`Scheduled for ${when} (${timeZone}), to ${audienceText(audience).toLowerCase()}.`}</p>
          <p>{`${reachText(reach)} today.`}</p>
        </>
      ) : notification.status === 'cancelled' ? (
        <p>{`This message was cancelled; it was scheduled for ${when} (${timeZone}).`}</p>
      ) : (
        <p>{`This message was not sent at ${when} (${timeZone}): no messages were left this month.`}</p>
      )}
      <div className="actions">
        <Link to={pushPath(card.id, '/scheduled')}>Scheduled messages</Link>
        <Link to={pushPath(card.id)}>Create another push</Link>
      </div>
    </section>
  )
}

type Progress = DeliveryCounts
type LiveState = { status: string; progress: Progress }
const FINISHED = new Set(['done', 'failed'])
const POLL_MS = 1000

/** With JavaScript, asks the confirm-data call every second until the message is finished; a 401 or 404 stops it. */
function useLiveProgress(initial: LiveState, dataUrl: string): LiveState {
  const [live, setLive] = useState(initial)
  const [retry, setRetry] = useState(0)
  useEffect(() => setLive(initial), [initial])
  useEffect(() => {
    if (FINISHED.has(live.status)) return
    let stopped = false
    const timer = window.setTimeout(async () => {
      try {
        const response = await fetch(dataUrl, { headers: { Accept: 'application/json' } })
        if (stopped || response.status === 401 || response.status === 404) return
        if (!response.ok) throw new Error(`status ${response.status}`)
        const answer = (await response.json()) as { notification: LiveState }
        if (!stopped) setLive({ status: answer.notification.status, progress: answer.notification.progress })
      } catch {
        if (!stopped) setRetry((count) => count + 1)
      }
    }, POLL_MS)
    return () => {
      stopped = true
      window.clearTimeout(timer)
    }
  }, [live, retry, dataUrl])
  return live
}

function DeliveryProgress({
  cardId,
  notification,
}: {
  cardId: string
  notification: { id: string; status: string; queuedAt: string | null; progress: Progress }
}) {
  const { status, progress } = useLiveProgress(notification, `/api${confirmPath(cardId, notification.id)}/data`)
  const finished = FINISHED.has(status)
  return (
    <section className="push-confirm__details push-progress" aria-label="Delivery">
      <p>
        Status: <span className="badge push-progress__status">{pushStatusText({ status, ...progress })}</span>
        {notification.queuedAt ? ` · sent on ${formatDate(notification.queuedAt)}` : null}
      </p>
      <div aria-live="polite">
        <label
          className="push-progress__label"
          htmlFor="push-progress-bar"
        >{`${progress.percent} % delivered or failed`}</label>
        <progress id="push-progress-bar" max={100} value={progress.percent}>{`${progress.percent} %`}</progress>
        <dl className="facts push-progress__counts">
          <dt>Sent</dt>
          <dd className="push-progress__sent">{progress.sent}</dd>
          <dt>Failed</dt>
          <dd className="push-progress__failed">{progress.failed}</dd>
          <dt>Pending</dt>
          <dd className="push-progress__pending">{progress.pending}</dd>
        </dl>
        <ChannelCounts channels={progress.channels} />
      </div>
      <div className="actions">
        {finished ? null : (
          <Link className="button button--ghost" to={confirmPath(cardId, notification.id)} reloadDocument>
            Refresh
          </Link>
        )}
        <Link to={pushPath(cardId, '/history')}>Notifications history</Link>
        <Link to={pushPath(cardId)}>Create another push</Link>
      </div>
    </section>
  )
}

/**
 * Sent / failed / pending on each channel the message goes through, once one besides web push is involved (a web
 * push alone is what the totals above already say). Short rows that wrap, so 360 px never scrolls sideways.
 */
function ChannelCounts({ channels }: { channels: ChannelBreakdown }) {
  const used = channelsUsed(channels)
  if (used.every((channel) => channel === 'web')) return null
  return (
    <ul className="push-channels" aria-label="By channel">
      {used.map((channel) => (
        <li key={channel} className={`push-channels__item push-channels__item--${channel}`}>
          <strong>{CHANNEL_WORDS[channel].name}:</strong> <span>{channelCountsText(channels[channel], 'sent')}</span>
        </li>
      ))}
    </ul>
  )
}

export const meta: MetaFunction = () => [{ title: 'Push-notification — Stampwise' }]
