import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { FieldErrors, FormErrors, InputField, SubmitButton, UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { DayOptions, MonthOptions } from '#app/routes/__holder-details-fields.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { progressOf, schemeOf, stampsOfGoal } from '#app/services/cards/loyalty-scheme.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { correctHolderDetails, readHolderCorrection } from '#app/services/holders/holder-details.server.ts'
import { phoneText } from '#app/services/holders/phone.server.ts'
import { countryOfTimeZone } from '#app/services/holders/zone-countries.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { HOLDER_FIELDS, holderProfileSchema, type HolderProfileInput } from '#app/utils/holder-details.ts'
import { reachText } from '#app/utils/holders-query.ts'
import { formatLocalDate, formatLocalDateTime } from '#app/utils/local-time.ts'
import { getOwnedHolderProfile } from '#models/holder-profile.server.ts'
import { getHolder, listHolderEvents, listHolderMessages, type HolderEvent } from '#models/holders.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'

/** The newest events and messages a holder's page shows (the page says when there are older ones). */
const EVENTS_SHOWN = 200
const MESSAGES_SHOWN = 100

export const handle: AccountHandle = { title: 'Holder', back: 'previous' }

/**
 * One holder of the owner's card: who they are, and their stamps, undos, redemptions and the messages that reached
 * them, newest first. Another owner's pass, a pass of another card and an id that is not one are all 404.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const owned = { cardId: card.id, userId, passId: params.passId ?? '' }
  const holder = await getHolder(owned)
  if (!holder) throw notFound('Holder not found')
  const [timeZone, history, inbox, given] = await Promise.all([
    getOwnerTimeZone(userId),
    listHolderEvents(owned, EVENTS_SHOWN),
    listHolderMessages(owned, MESSAGES_SHOWN),
    getOwnedHolderProfile(owned),
  ])
  const profile = given?.profile ?? null
  return {
    card: { id: card.id, title: card.title, reward: card.reward },
    holder: {
      shortCode: holder.shortCode,
      joined: formatLocalDate(holder.joinedAt, timeZone),
      lastVisit: formatLocalDateTime(holder.lastVisitAt, timeZone),
      stamps: stampsOfGoal(progressOf(schemeOf(holder), holder.stamps)),
      rewardsEarned: holder.rewardsEarned,
      rewardsRedeemed: holder.rewardsRedeemed,
      reach: reachText(holder.reach),
    },
    events: history.events.map((event) => ({
      id: event.id,
      text: eventText(event),
      at: formatLocalDateTime(event.at, timeZone),
      undone: event.undoneAt ? formatLocalDateTime(event.undoneAt, timeZone) : null,
    })),
    moreEvents: history.more,
    messages: inbox.messages.map((message) => ({
      id: message.id,
      title: message.title,
      automatic: message.kind !== 'message',
      at: formatLocalDateTime(message.at, timeZone),
      channels: reachText(message.channels),
    })),
    moreMessages: inbox.more,
    // What the holder gave (issue 34), as the owner may correct or erase it on the holder's request.
    details: {
      name: profile?.name ?? '',
      email: profile?.email ?? '',
      emailConfirmed: profile?.emailConfirmed ?? false,
      phone: profile?.phone ? phoneText(profile.phone) : '',
      birthDay: profile?.birthday ? String(profile.birthday.day) : '',
      birthMonth: profile?.birthday ? String(profile.birthday.month) : '',
      any: profile !== null,
    },
  }
}

type ActionData = { result: SubmissionResult<string[]> }

export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const owned = { cardId: card.id, userId, passId: params.passId ?? '' }
  const found = await getOwnedHolderProfile(owned)
  if (!found) throw notFound('Holder not found')
  const formData = await readFormData(request)
  const intent = formData.get('intent')
  const empty = new FormData()
  const reading =
    intent === 'erase'
      ? readHolderCorrection(empty, 'US')
      : intent === 'correct'
        ? readHolderCorrection(
            formData,
            found.settings?.phoneCountry ?? countryOfTimeZone(await getOwnerTimeZone(userId)) ?? 'US',
          )
        : null
  if (!reading) return formReply<ActionData>({ result: { status: 'error', error: { '': [UNREADABLE_SUBMISSION] } } })
  if (reading.status === 'error') return formReply<ActionData>({ result: reading.reply })
  if (!(await correctHolderDetails({ owned, change: reading.change, businessName: card.businessName })))
    throw notFound('Holder not found')
  return redirectWithToast(`/account/${card.id}/holders/${owned.passId}`, {
    message: intent === 'erase' || !reading.given ? 'The holder’s details were erased.' : 'Details saved.',
  })
}

function eventText(event: HolderEvent): string {
  if (event.kind === 'redeem') return 'Reward redeemed'
  if (event.kind === 'undo') return 'Stamp undone'
  return event.count === 1 ? '1 stamp' : `${event.count} stamps`
}

export default function Holder() {
  const { card, holder, events, moreEvents, messages, moreMessages, details } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ActionData | undefined
  return (
    <>
      <h1>
        Holder <code>{holder.shortCode}</code>
      </h1>
      <p className="lead">
        A holder of {card.title || 'this card'}. <Link to={`/account/${card.id}/holders`}>All holders</Link>
      </p>
      <dl className="holder-facts">
        <div>
          <dt>Joined</dt>
          <dd>{holder.joined}</dd>
        </div>
        <div>
          <dt>Last visit</dt>
          <dd>{holder.lastVisit}</dd>
        </div>
        <div>
          <dt>Stamps now</dt>
          <dd>{holder.stamps}</dd>
        </div>
        <div>
          <dt>Rewards</dt>
          <dd>{`${holder.rewardsEarned} earned, ${holder.rewardsRedeemed} redeemed`}</dd>
        </div>
        <div>
          <dt>Reached by</dt>
          <dd>{holder.reach}</dd>
        </div>
      </dl>
      <section aria-labelledby="holder-details" className="panel">
        <h2 id="holder-details">Details the holder gave</h2>
        <p className="field-hint">
          {details.any
            ? 'Correct them when the holder asks you to; an empty field is erased. A new e-mail is confirmed by the holder from a link we send.'
            : 'None yet. Choose what your card asks on its Holder details page.'}
        </p>
        <DetailsForm key={JSON.stringify(details)} details={details} lastResult={actionData?.result} />
        {details.any ? (
          <Form method="post" className="holder-erase">
            <input type="hidden" name="intent" value="erase" />
            <button type="submit" className="button button--ghost">
              Erase all details
            </button>
          </Form>
        ) : null}
      </section>
      <section aria-labelledby="holder-visits">
        <h2 id="holder-visits">Stamps and rewards</h2>
        {events.length ? (
          <ol className="holder-history">
            {events.map((event) => (
              <li key={event.id}>
                <span className="holder-history__what">
                  {event.text}
                  {event.undone ? <span className="badge">undone</span> : null}
                </span>{' '}
                <span className="field-hint">{event.at}</span>
              </li>
            ))}
          </ol>
        ) : (
          <p className="panel">No stamps yet.</p>
        )}
        {moreEvents ? (
          <p className="field-hint">{`Showing the newest ${EVENTS_SHOWN}; older ones are not shown.`}</p>
        ) : null}
      </section>
      <section aria-labelledby="holder-messages">
        <h2 id="holder-messages">Messages received</h2>
        {messages.length ? (
          <ol className="holder-history">
            {messages.map((message) => (
              <li key={message.id}>
                <span className="holder-history__what">
                  <strong>{message.title}</strong>
                  {message.automatic ? <span className="badge">automatic</span> : null}
                </span>{' '}
                <span className="field-hint">{`${message.at} · ${message.channels}`}</span>
              </li>
            ))}
          </ol>
        ) : (
          <p className="panel">No messages have reached this holder yet.</p>
        )}
        {moreMessages ? (
          <p className="field-hint">{`Showing the newest ${MESSAGES_SHOWN}; older ones are not shown.`}</p>
        ) : null}
      </section>
    </>
  )
}

const CORRECTION_SCHEMA = holderProfileSchema([...HOLDER_FIELDS])

function DetailsForm({
  details,
  lastResult,
}: {
  details: { name: string; email: string; emailConfirmed: boolean; phone: string; birthDay: string; birthMonth: string }
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const { emailConfirmed: _confirmed, ...defaultValue } = details
  // What the browser sends: text in every field (the schema makes numbers of the birthday).
  const [form, fields] = useForm<
    Record<'name' | 'email' | 'phone' | 'birthDay' | 'birthMonth', string>,
    HolderProfileInput
  >({
    id: 'holder-correction',
    lastResult,
    defaultValue,
    // The phone is checked on the server, where the phone library's metadata lives.
    onValidate: ({ formData }) => parseWithZod(formData, { schema: CORRECTION_SCHEMA }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  return (
    <Form method="post" className="form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="correct" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <InputField meta={fields.name} label="Name" autoComplete="off" />
      <InputField
        meta={fields.email}
        label="E-mail"
        type="email"
        autoComplete="off"
        hint={details.email ? (details.emailConfirmed ? 'Confirmed by the holder.' : 'Not confirmed yet.') : undefined}
      />
      <InputField meta={fields.phone} label="Phone" type="tel" autoComplete="off" />
      <fieldset className="field">
        <legend>Birthday</legend>
        <div className="holder-birthday">
          <label htmlFor={fields.birthDay.id} className="visually-hidden">
            Day
          </label>
          <select id={fields.birthDay.id} name={fields.birthDay.name} defaultValue={details.birthDay}>
            <DayOptions />
          </select>
          <label htmlFor={fields.birthMonth.id} className="visually-hidden">
            Month
          </label>
          <select id={fields.birthMonth.id} name={fields.birthMonth.name} defaultValue={details.birthMonth}>
            <MonthOptions />
          </select>
        </div>
        <FieldErrors id={fields.birthDay.errorId} errors={fields.birthDay.errors} />
        <FieldErrors id={fields.birthMonth.errorId} errors={fields.birthMonth.errors} />
      </fieldset>
      <SubmitButton pendingLabel="Saving…">Save details</SubmitButton>
    </Form>
  )
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Holder ${data.holder.shortCode} — Stampwise` : 'Holder — Stampwise' },
]
