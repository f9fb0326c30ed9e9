import { getFormProps } from '@conform-to/react'
import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { DataTable, type Column } from '#app/components/data-table.tsx'
import { SelectField } from '#app/components/select-field.tsx'
import { TableScroll } from '#app/components/table-scroll.tsx'
import {
  BAD_CURSOR_MESSAGE,
  activityChoices,
  encodeActivityCursor,
  parseActivityFilter,
  requestedActivityCursor,
} from '#app/services/activity/activity-filter.server.ts'
import { locationLabel, personLabel } from '#app/services/activity/activity-labels.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import {
  ACTIVITY_PER_PAGE,
  ActivityQuerySchema,
  actionText,
  activityHref,
  type ActivityQuery,
} from '#app/utils/activity-query.ts'
import { formatLocalDateTime } from '#app/utils/local-time.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { activityPage } from '#models/activity.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'

export const handle: AccountHandle = { title: 'Activity', back: 'account' }

/**
 * Who stamped, undid or redeemed, on which card, where and when (docs/product/staff-locations-rules.md), newest first,
 * 50 a page by keyset (models/activity.server.ts), filtered by card, person and location from the address. A query the
 * form could not have sent (another owner's card, a cut page link) is a 400 that shows the form with the reason; never
 * a 500.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const ownerId = await requireUserId(request)
  const url = new URL(request.url)
  const [choices, timeZone] = await Promise.all([activityChoices(ownerId), getOwnerTimeZone(ownerId)])
  const submission = parseActivityFilter(url.searchParams, ActivityQuerySchema, choices)
  const base = { choices, timeZone, result: submission.reply() }
  if (submission.status !== 'success') return data({ ...base, query: null, list: null, error: null }, { status: 400 })
  const query = submission.value
  const after = requestedActivityCursor(url.searchParams)
  if (after === 'bad') return data({ ...base, query, list: null, error: BAD_CURSOR_MESSAGE }, { status: 400 })
  const { card, ...who } = query
  // One row more than the page tells whether there is a next one.
  const rows = await activityPage(ownerId, { cardId: card, ...who }, after, ACTIVITY_PER_PAGE + 1)
  const shown = rows.slice(0, ACTIVITY_PER_PAGE)
  const last = shown.at(-1)
  const events = shown.map((row) => ({
    id: row.id,
    when: formatLocalDateTime(row.created_at, timeZone),
    action: actionText(row.kind, row.count),
    undone: row.kind === 'stamp' && row.undone,
    overridden: row.overridden,
    cardId: row.card_id,
    card: row.card_title,
    passId: row.pass_id,
    shortCode: row.short_code,
    person: personLabel(row, ownerId),
    location: locationLabel(row),
  }))
  return {
    ...base,
    query,
    error: null,
    list: {
      events,
      paged: after !== null,
      next: rows.length > ACTIVITY_PER_PAGE && last ? encodeActivityCursor({ at: last.cursor_at, id: last.id }) : null,
    },
  }
}

export default function Activity() {
  const { choices, timeZone, result, query, list, error } = useLoaderData<typeof loader>()
  const [form, fields] = useSchemaForm(ActivityQuerySchema, { id: 'activity-filters', lastResult: result })
  return (
    <>
      <h1>Activity</h1>
      <p className="lead">
        Who stamped, undid or redeemed, on which card, where and when. Times are in {timeZone} (
        <Link to="/account/profile">change</Link>).
      </p>
      <Form method="GET" className="holders-search" {...getFormProps(form)}>
        <SelectField meta={fields.card} label="Card" anyLabel="All cards" options={choices.cards} />
        <SelectField meta={fields.person} label="Person" anyLabel="Everyone" options={choices.people} />
        <SelectField meta={fields.location} label="Location" anyLabel="All locations" options={choices.locations} />
        <div className="holders-search__actions">
          <button type="submit" className="button">
            Show activity
          </button>
          <Link to="/account/activity">Clear</Link>
        </div>
      </Form>
      {error && query ? (
        <div className="panel" role="alert">
          <p>{error}</p>
          <Link to={activityHref(query)}>Newest</Link>
        </div>
      ) : list && query ? (
        <ActivityList list={list} query={query} />
      ) : (
        <p className="panel">Correct the filters above to see the activity.</p>
      )}
    </>
  )
}

type LoadedList = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>['list']>
type EventView = LoadedList['events'][number]

const columns: Column<EventView>[] = [
  { header: 'When', cell: (event) => event.when },
  {
    header: 'What',
    cell: (event) => (
      <>
        {event.action}
        {event.undone ? <span className="badge activity-badge">undone</span> : null}
        {event.overridden ? <span className="badge activity-badge">rule overridden</span> : null}
      </>
    ),
  },
  { header: 'Card', cell: (event) => event.card },
  {
    header: 'Holder',
    cell: (event) =>
      event.passId && event.shortCode ? (
        <Link to={`/account/${event.cardId}/holders/${event.passId}`} aria-label={`History of ${event.shortCode}`}>
          <code>{event.shortCode}</code>
        </Link>
      ) : (
        'Card removed'
      ),
  },
  { header: 'Who', cell: (event) => event.person },
  { header: 'Where', cell: (event) => event.location },
]

function ActivityList({ list, query }: { list: LoadedList; query: ActivityQuery }) {
  const { events, paged, next } = list
  const filtered = Boolean(query.card || query.person || query.location)
  const empty = (
    <p className="panel">
      {paged ? 'No more activity here.' : filtered ? 'Nothing matches these filters.' : 'No stamps yet.'}{' '}
      {paged ? <Link to={activityHref(query)}>Newest</Link> : null}
    </p>
  )
  return (
    <>
      <p className="card-detail__links">
        <a href={activityHref(query, { csv: true })} download>
          Download this activity (CSV)
        </a>
      </p>
      {events.length ? (
        <TableScroll label="Activity table">
          <DataTable rows={events} columns={columns} caption="Activity" className="holders-table" empty={empty} />
        </TableScroll>
      ) : (
        empty
      )}
      {next || paged ? (
        <nav aria-label="Pages" className="pager">
          {paged ? <Link to={activityHref(query)}>Newest</Link> : null}
          {next ? <Link to={activityHref(query, { after: next })}>Older 50</Link> : null}
        </nav>
      ) : null}
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Activity — Stampwise' }]
