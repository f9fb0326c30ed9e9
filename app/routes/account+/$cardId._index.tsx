import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { z } from 'zod'
import { ActivityChart } from '#app/components/activity-chart.tsx'
import { CardPreview } from '#app/components/card-preview.tsx'
import { FormErrors, SubmitButton, UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { InsightFigures } from '#app/components/insight-figures.tsx'
import { SelectField } from '#app/components/select-field.tsx'
import { VisitHeatMap } from '#app/components/visit-heat-map.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { activityChoices, parseActivityFilter } from '#app/services/activity/activity-filter.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { checkCardSlot } from '#app/services/billing/plan-gate.server.ts'
import { deleteCard } from '#app/services/cards/card-delete.server.ts'
import { joinUrl } from '#app/services/cards/card-qr.server.ts'
import { CARD_NOT_FOUND, requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { cardInsights } from '#app/services/insights/card-insights.server.ts'
import { cardWalletStatus } from '#app/services/wallet/wallet-links.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { ActivityFilterSchema, type ActivityFilter } from '#app/utils/activity-query.ts'
import { chartUnit } from '#app/utils/chart-buckets.ts'
import {
  DEFAULT_INSIGHT_RANGE,
  INSIGHT_RANGES,
  isInsightRangeKey,
  type InsightRangeKey,
} from '#app/utils/insight-range.ts'
import { formatDay } from '#app/utils/local-time.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { cardTotals } from '#models/card-stats.server.ts'
import { setOwnedCardArchived, setOwnedCardAutoPush } from '#models/card.server.ts'

export const CardActionSchema = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('archive') }),
  z.object({ intent: z.literal('restore') }),
  // A checkbox: absent when unticked.
  z.object({ intent: z.literal('auto-push'), autoPush: z.literal('on').optional() }),
  z.object({ intent: z.literal('delete'), confirm: z.string({ error: 'Type the card’s title to delete it' }).trim() }),
])

export const handle: AccountHandle = { title: 'Reward Card', back: 'account' }

/** The card page's address with its range and its insights filter (defaults left out). */
function insightsHref(cardId: string, range: InsightRangeKey, filter: ActivityFilter) {
  const params = new URLSearchParams()
  if (range !== DEFAULT_INSIGHT_RANGE) params.set('range', range)
  if (filter.person) params.set('person', filter.person)
  if (filter.location) params.set('location', filter.location)
  const search = params.toString()
  return `/account/${cardId}${search ? `?${search}` : ''}`
}

/**
 * One card: its design, holders, what it did for the business over a range (`?range=7d|30d|90d|12m`, 30 days unless
 * said; docs/product/insights-and-exports.md), and what the owner can do with it. A range that is not one of
 * those shows the default with a 400 and a line saying so. The insights may be narrowed to a person and a location
 * (`?person=&location=`, the activity's filters): a value that is not one of the owner's shows them unfiltered with
 * a 400 and the field's message.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const owned = { cardId: card.id, userId }
  const searchParams = new URL(request.url).searchParams
  // A filter in the address is checked against the owner's people and places before the figures are read; without
  // one, the choices only fill the form and load beside the figures (no round trip of their own).
  const filtered = searchParams.has('person') || searchParams.has('location')
  const choicesLoad = activityChoices(userId, { withCards: false })
  const askedFilter = filtered ? parseActivityFilter(searchParams, ActivityFilterSchema, await choicesLoad) : null
  const filter: ActivityFilter = askedFilter?.status === 'success' ? askedFilter.value : {}
  const asked = searchParams.get('range')
  const rangeKey: InsightRangeKey = asked !== null && isInsightRangeKey(asked) ? asked : DEFAULT_INSIGHT_RANGE
  const rangeError =
    asked !== null && asked !== rangeKey
      ? `There is no range “${asked.slice(0, 40)}”: choose 7 days, 30 days, 90 days or 12 months. Showing ${INSIGHT_RANGES[rangeKey].label}.`
      : null
  const [totals, insights, wallets, choices] = await Promise.all([
    cardTotals(owned),
    cardInsights(owned, rangeKey, undefined, filter),
    cardWalletStatus(owned),
    choicesLoad,
  ])
  const filterSubmission = askedFilter ?? parseActivityFilter(searchParams, ActivityFilterSchema, choices)
  // Deleted between the two reads: the same answer as a card that is not there.
  if (!totals) throw notFound(CARD_NOT_FOUND)
  const labelOf = (options: readonly (readonly [string, string])[], value: string | undefined) =>
    options.find(([option]) => option === value)?.[1] ?? null
  const insightsFilter = {
    // Only a business with staff or locations has anything to filter by (a filter in the address shows it too).
    shown: choices.hasTeamOrPlaces || searchParams.has('person') || searchParams.has('location'),
    people: choices.people,
    locations: choices.locations,
    result: filterSubmission.reply(),
    value: filter,
    person: labelOf(choices.people, filter.person),
    location: labelOf(choices.locations, filter.location),
  }
  return data(
    { card, totals, insights, insightsFilter, rangeError, wallets, joinUrl: joinUrl(card.slug) },
    rangeError || filterSubmission.status !== 'success' ? { status: 400 } : undefined,
  )
}

export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const submission = parseWithZod(await readFormData(request), { schema: CardActionSchema })
  if (submission.status !== 'success') return formReply({ result: submission.reply() })
  const back = `/account/${card.id}`
  switch (submission.value.intent) {
    case 'archive':
      await setOwnedCardArchived({ cardId: card.id, userId, archived: true })
      return redirectWithToast(back, { message: 'Card archived: holders keep it, nobody new can join.' })
    case 'restore': {
      const slot = await checkCardSlot(userId)
      if (!slot.allowed) return formReply({ result: submission.reply({ formErrors: [slot.message] }) }, 409)
      await setOwnedCardArchived({ cardId: card.id, userId, archived: false })
      return redirectWithToast(back, { message: 'Card restored: new holders can join again.' })
    }
    case 'auto-push': {
      const autoPush = submission.value.autoPush === 'on'
      await setOwnedCardAutoPush({ cardId: card.id, userId, autoPush })
      return redirectWithToast(back, {
        message: autoPush ? 'Holders will get a push when stamped.' : 'Holders will no longer get a push when stamped.',
      })
    }
    case 'delete': {
      const expected = card.title || card.businessName || 'delete'
      if (submission.value.confirm !== expected) {
        return formReply({
          result: submission.reply({ fieldErrors: { confirm: [`Type “${expected}” to delete this card`] } }),
        })
      }
      await deleteCard({ cardId: card.id, userId })
      return redirectWithToast('/account', { message: 'Card deleted.' })
    }
  }
}

export default function RewardCard() {
  const { card, totals, insights, insightsFilter, rangeError, wallets, joinUrl } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const errors = actionData?.result?.error ?? {}
  const deleteWord = card.title || card.businessName || 'delete'
  return (
    <>
      <h1>Reward Card</h1>
      {/* At the counter the owner comes to stamp: the first thing on the page, above the figures (issue 30). */}
      <p className="stamp-action">
        <Link to={`/account/${card.id}/scan`} className="button button--block">
          Stamp a card
        </Link>
      </p>
      <div className="card-detail">
        <div>
          <CardPreview card={card} />
          {card.status !== 'active' ? <p className="badge">{card.status === 'draft' ? 'Draft' : 'Archived'}</p> : null}
          <p className="field-hint">
            Join address: <a href={joinUrl}>{joinUrl}</a>
          </p>
        </div>
        <section aria-labelledby="card-figures">
          <h2 id="card-figures">Holders</h2>
          <dl className="account-card__stats">
            <div>
              <dt>Holders</dt>
              <dd>{totals.holders}</dd>
            </div>
            <div>
              <dt>With notifications</dt>
              <dd>{totals.subscribers}</dd>
            </div>
            {wallets.appleWallet.on || wallets.appleWallet.holders > 0 ? (
              <div>
                <dt>In Apple Wallet</dt>
                <dd>{wallets.appleWallet.holders}</dd>
              </div>
            ) : null}
            {wallets.googleWallet.on || wallets.googleWallet.holders > 0 ? (
              <div>
                <dt>In Google Wallet</dt>
                <dd>{wallets.googleWallet.holders}</dd>
              </div>
            ) : null}
          </dl>
          <p className="card-detail__links">
            <a href={`/account/${card.id}/export/holders.csv`} download>
              Download holders (CSV)
            </a>
            <a href={`/account/${card.id}/export/stamps.csv`} download>
              Download stamps (CSV)
            </a>
          </p>
          <p className="field-hint card-detail__wallets">
            {wallets.appleWallet.on
              ? 'Apple Wallet: holders can add this card to Apple Wallet from their card page.'
              : 'Apple Wallet: not available yet.'}
          </p>
          <p className="field-hint card-detail__wallets">
            {wallets.googleWallet.on
              ? 'Google Wallet: holders can save this card to Google Wallet from their card page.'
              : 'Google Wallet: not available yet.'}
          </p>
        </section>
      </div>
      <section aria-labelledby="card-insights" className="panel insights">
        <h2 id="card-insights">Insights</h2>
        <nav aria-label="Range" className="range-switch">
          {(Object.keys(INSIGHT_RANGES) as (keyof typeof INSIGHT_RANGES)[]).map((key) => (
            <Link
              key={key}
              to={insightsHref(card.id, key, insightsFilter.value)}
              aria-current={insights.range.key === key ? 'page' : undefined}
              className="range-switch__option"
              preventScrollReset
            >
              {INSIGHT_RANGES[key].label}
            </Link>
          ))}
        </nav>
        {rangeError ? (
          <p className="notice-panel" role="alert">
            {rangeError}
          </p>
        ) : null}
        <p className="field-hint">
          {formatDay(insights.range.first)} to {formatDay(insights.range.last)}, days in {insights.timeZone} (
          <Link to="/account/profile">change</Link>), compared with the {insights.range.label} before.
        </p>
        {insightsFilter.shown ? (
          <InsightsFilterForm cardId={card.id} rangeKey={insights.range.key} filter={insightsFilter} />
        ) : null}
        {insights.filtered ? (
          <p className="field-hint" role="status">
            {filteredLine(insightsFilter)} New holders, rewards earned, the redemption rate and the time to reward
            belong to a holder’s whole card, not to one person or place, so they are left out here.
          </p>
        ) : null}
        <InsightFigures items={insights.items} previousLabel={insights.range.label} />
        <h3>{`${insights.filtered ? 'Stamps' : 'Stamps and new holders'} per ${chartUnit(insights.days.length)}`}</h3>
        <ActivityChart days={insights.days} label={`Last ${insights.range.label}`} newHolders={!insights.filtered} />
        <h3>Visits by weekday and hour</h3>
        <VisitHeatMap
          hours={insights.hours}
          label={`Visits by weekday and hour (${insights.timeZone}), last ${insights.range.label}`}
        />
      </section>
      <nav aria-label="Card actions" className="actions">
        <Link to={`/account/${card.id}/qr_code`} className="button button--ghost">
          QR code and poster
        </Link>
        {/* A published card is edited in the account; a draft is finished where it was begun, in the wizard. */}
        {card.status === 'draft' ? (
          <Link to={`/main?cardId=${card.id}`} className="button button--ghost">
            Finish the setup
          </Link>
        ) : (
          <Link to={`/account/${card.id}/edit`} className="button button--ghost">
            Edit card
          </Link>
        )}
        <Link to={`/account/${card.id}/push_notification`} className="button button--ghost">
          Push notifications
        </Link>
        <Link to={`/account/${card.id}/automations`} className="button button--ghost">
          Automatic messages
        </Link>
        <Link to={`/account/${card.id}/rules`} className="button button--ghost">
          Stamping rules
        </Link>
        <Link to={`/account/${card.id}/holder-details`} className="button button--ghost">
          Holder details
        </Link>
        <Link to={`/account/${card.id}/push_notification/history`} className="button button--ghost">
          History
        </Link>
        <Link to={`/account/${card.id}/holders`} className="button button--ghost">
          Holders
        </Link>
        <Link to={`/account/activity?card=${card.id}`} className="button button--ghost">
          Activity
        </Link>
      </nav>
      {/* Only the delete form's confirmation has a place of its own; an unknown intent has none. */}
      <FormErrors
        id="card-action-errors"
        errors={errors[''] ?? (actionData && !errors.confirm ? [UNREADABLE_SUBMISSION] : undefined)}
      />
      <Form method="POST" className="panel">
        <input type="hidden" name="intent" value="auto-push" />
        <label className="checkbox">
          <input type="checkbox" name="autoPush" defaultChecked={card.autoPush} /> Send holders a push when their card
          is stamped
        </label>
        <p className="field-hint">
          It goes only to the holder stamped, and does not count toward your monthly messages. The reward push, a
          welcome and other messages that go by themselves are on{' '}
          <Link to={`/account/${card.id}/automations`}>Automatic messages</Link>.
        </p>
        <SubmitButton pendingLabel="Saving...">Save</SubmitButton>
      </Form>
      {card.status === 'active' ? (
        <details className="panel danger-zone">
          <summary>Archive this card</summary>
          <p>
            Holders keep their card and its stamps, and you can still stamp it; nobody new can join. You can restore it
            later.
          </p>
          <Form method="POST">
            <input type="hidden" name="intent" value="archive" />
            <SubmitButton pendingLabel="Archiving...">Archive card</SubmitButton>
          </Form>
        </details>
      ) : card.status === 'archived' ? (
        <Form method="POST" className="panel">
          <p>This card is archived: nobody new can join.</p>
          <input type="hidden" name="intent" value="restore" />
          <SubmitButton pendingLabel="Restoring...">Restore card</SubmitButton>
        </Form>
      ) : null}
      <details className="panel danger-zone" open={Boolean(errors.confirm)}>
        <summary>Delete this card</summary>
        <p>Deleting removes the card from every holder’s phone, with its stamps and messages. This cannot be undone.</p>
        <Form method="POST">
          <input type="hidden" name="intent" value="delete" />
          <div className="field">
            <label htmlFor="delete-confirm">Type “{deleteWord}” to confirm</label>
            <input
              id="delete-confirm"
              name="confirm"
              autoComplete="off"
              aria-describedby="delete-confirm-error"
              aria-invalid={errors.confirm ? true : undefined}
            />
            <div id="delete-confirm-error" className="field-error">
              {errors.confirm?.map((message) => (
                <p key={message}>{message}</p>
              ))}
            </div>
          </div>
          <SubmitButton pendingLabel="Deleting...">Delete card</SubmitButton>
        </Form>
      </details>
    </>
  )
}

type LoadedFilter = ReturnType<typeof useLoaderData<typeof loader>>['insightsFilter']

function filteredLine({ person, location }: Pick<LoadedFilter, 'person' | 'location'>) {
  const by = person ? ` by ${person === 'You' ? 'you' : person}` : ''
  const at = location ? (location === 'No location' ? ' with no location' : ` at ${location}`) : ''
  return `Showing the visits, stamps and redemptions${by}${at}.`
}

/** The insights by person and location: a GET form (works without JavaScript), keeping the range. */
function InsightsFilterForm({
  cardId,
  rangeKey,
  filter,
}: {
  cardId: string
  rangeKey: InsightRangeKey
  filter: LoadedFilter
}) {
  const [form, fields] = useSchemaForm(ActivityFilterSchema, { id: 'insights-filter', lastResult: filter.result })
  return (
    <Form
      method="GET"
      action={`/account/${cardId}`}
      className="holders-search insights-filter"
      preventScrollReset
      {...getFormProps(form)}
    >
      {rangeKey !== DEFAULT_INSIGHT_RANGE ? <input type="hidden" name="range" value={rangeKey} /> : null}
      <SelectField meta={fields.location} label="Location" anyLabel="All locations" options={filter.locations} />
      <SelectField meta={fields.person} label="Person" anyLabel="Everyone" options={filter.people} />
      <div className="holders-search__actions">
        <button type="submit" className="button button--ghost">
          Filter insights
        </button>
        {filter.value.person || filter.value.location ? (
          <Link to={insightsHref(cardId, rangeKey, {})} preventScrollReset>
            All
          </Link>
        ) : null}
      </div>
    </Form>
  )
}

export const meta: MetaFunction = () => [{ title: 'Reward Card — Stampwise' }]
