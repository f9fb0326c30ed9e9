import { getFormProps, getInputProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { DataTable, type Column } from '#app/components/data-table.tsx'
import { FieldErrors } from '#app/components/forms.tsx'
import { SelectField } from '#app/components/select-field.tsx'
import { TableScroll } from '#app/components/table-scroll.tsx'
import { formReply } from '#app/server/form-reply.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { progressOf, schemeOf, stampsOfGoal } from '#app/services/cards/loyalty-scheme.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { phoneText } from '#app/services/holders/phone.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import {
  HOLDER_FILTER_OPTIONS,
  HOLDER_SORT_OPTIONS,
  HOLDERS_PER_PAGE,
  HoldersQuerySchema,
  holdersListHref,
  reachText,
} from '#app/utils/holders-query.ts'
import { formatLocalDate, formatLocalDateTime } from '#app/utils/local-time.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { countHolders, listHolders } from '#models/holders.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'
import { BAD_CURSOR_MESSAGE, encodeHolderCursor, requestedHolderPosition } from './__holders-cursor.server.ts'

export const handle: AccountHandle = { title: 'Holders', back: 'previous' }

/** The form's fields, first value each: a field repeated in a typed address counts once. */
function formValues(searchParams: URLSearchParams) {
  const values = new URLSearchParams()
  for (const name of Object.keys(HoldersQuerySchema.shape)) {
    const value = searchParams.get(name)
    if (value !== null) values.set(name, value)
  }
  return values
}

/**
 * A card's holders, 50 a page by keyset (models/holders.server.ts), filtered, searched by short code and ordered
 * from the address. A query the form could not have sent (an unknown filter, a code with other characters, a cut
 * page link) is a 400 that shows the form with the reason; never a 500.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const url = new URL(request.url)
  const submission = parseWithZod(formValues(url.searchParams), { schema: HoldersQuerySchema })
  const cardView = { id: card.id, title: card.title }
  if (submission.status !== 'success') {
    return formReply({ card: cardView, result: submission.reply(), query: null, list: null, error: null })
  }
  const query = submission.value
  const position = requestedHolderPosition(url.searchParams, query.sort)
  if (!position) {
    return formReply({ card: cardView, result: submission.reply(), query, list: null, error: BAD_CURSOR_MESSAGE })
  }
  const owned = { cardId: card.id, userId }
  const search = query.q || undefined
  const [timeZone, page, total] = await Promise.all([
    getOwnerTimeZone(userId),
    listHolders(owned, { filter: query.filter, sort: query.sort, search, position, limit: HOLDERS_PER_PAGE }),
    countHolders(owned, { filter: query.filter, search }),
  ])
  const first = page.rows[0]
  const last = page.rows.at(-1)
  const cursor = (key: { value: string; id: string }) => encodeHolderCursor(query.sort, key)
  // Reading backwards, `more` is about earlier rows; the rows after the page are the ones we came from.
  const hasPrevious = position.before ? page.more : Boolean(position.after)
  const hasNext = position.before ? true : page.more
  const holders = page.rows.map((row) => ({
    id: row.id,
    shortCode: row.shortCode,
    // Who the holder is, as far as they said (issue 34): a name, else an e-mail, else a phone.
    who: row.given.name ?? row.given.email ?? (row.given.phone ? phoneText(row.given.phone) : null),
    joined: formatLocalDate(row.joinedAt, timeZone),
    lastVisit: formatLocalDateTime(row.lastVisitAt, timeZone),
    stamps: stampsOfGoal(progressOf(schemeOf(row), row.stamps)),
    rewardsEarned: row.rewardsEarned,
    rewardsRedeemed: row.rewardsRedeemed,
    reach: reachText(row.reach),
  }))
  return {
    card: cardView,
    result: submission.reply(),
    query,
    error: null,
    list: {
      holders,
      total,
      paged: Boolean(position.after || position.before),
      previous: hasPrevious && first ? cursor(first.key) : null,
      next: hasNext && last ? cursor(last.key) : null,
    },
  }
}

export default function Holders() {
  const { card, result, query, list, error } = useLoaderData<typeof loader>()
  const [form, fields] = useSchemaForm(HoldersQuerySchema, { id: 'holders-search', lastResult: result })
  return (
    <>
      <h1>Holders</h1>
      <p className="lead">Everyone who holds {card.title || 'this card'}, with their stamps, rewards and last visit.</p>
      <Form method="GET" className="holders-search" {...getFormProps(form)}>
        <SelectField meta={fields.filter} label="Show" options={HOLDER_FILTER_OPTIONS} />
        <div className="field">
          <label htmlFor={fields.q.id}>Short code</label>
          <input
            {...getInputProps(fields.q, { type: 'search', ariaDescribedBy: `${fields.q.id}-hint` })}
            key={fields.q.key}
            autoComplete="off"
          />
          <p id={`${fields.q.id}-hint`} className="field-hint">
            The code under the holder’s QR, or its start
          </p>
          <FieldErrors id={fields.q.errorId} errors={fields.q.errors} />
        </div>
        <SelectField meta={fields.sort} label="Order" options={HOLDER_SORT_OPTIONS} />
        <div className="holders-search__actions">
          <button type="submit" className="button">
            Show holders
          </button>
          <Link to={`/account/${card.id}/holders`}>Clear</Link>
        </div>
      </Form>
      {error && query ? (
        <div className="panel" role="alert">
          <p>{error}</p>
          <Link to={holdersListHref(card.id, query)}>First page</Link>
        </div>
      ) : list && query ? (
        <HoldersList cardId={card.id} list={list} query={query} />
      ) : (
        <p className="panel">Correct the search above to see holders.</p>
      )}
    </>
  )
}

type LoadedList = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>['list']>
type LoadedQuery = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>['query']>
type HolderView = LoadedList['holders'][number]

const holderColumns = (cardId: string): Column<HolderView>[] => [
  {
    header: 'Short code',
    cell: (holder) => (
      <Link to={`/account/${cardId}/holders/${holder.id}`} aria-label={`History of ${holder.shortCode}`}>
        <code>{holder.shortCode}</code>
      </Link>
    ),
  },
  { header: 'Holder', cell: (holder) => holder.who ?? '—' },
  { header: 'Joined', cell: (holder) => holder.joined },
  { header: 'Last visit', cell: (holder) => holder.lastVisit },
  { header: 'Stamps', cell: (holder) => holder.stamps },
  { header: 'Rewards earned', cell: (holder) => holder.rewardsEarned },
  { header: 'Redeemed', cell: (holder) => holder.rewardsRedeemed },
  { header: 'Reached by', cell: (holder) => holder.reach },
]

const count = (total: number) => (total === 1 ? '1 holder' : `${total.toLocaleString('en-US')} holders`)

function HoldersList({ cardId, list, query }: { cardId: string; list: LoadedList; query: LoadedQuery }) {
  const { holders, total, paged, previous, next } = list
  const empty = (
    <p className="panel">
      {total === 0 ? 'No holders match.' : 'No more holders here.'}{' '}
      {paged ? <Link to={holdersListHref(cardId, query)}>First page</Link> : null}
    </p>
  )
  return (
    <>
      <p className="holders-count" role="status">
        {`${count(total)} ${query.filter === 'all' && !query.q ? 'in all' : 'match'}`}
      </p>
      {holders.length ? (
        <TableScroll label="Holders table">
          <DataTable
            rows={holders}
            columns={holderColumns(cardId)}
            caption="Holders"
            className="holders-table"
            empty={empty}
          />
        </TableScroll>
      ) : (
        empty
      )}
      {previous || next || paged ? (
        <nav aria-label="Pages" className="pager">
          {paged ? <Link to={holdersListHref(cardId, query)}>First page</Link> : null}
          {previous ? <Link to={holdersListHref(cardId, query, { before: previous })}>Previous</Link> : null}
          {next ? <Link to={holdersListHref(cardId, query, { after: next })}>Next 50</Link> : null}
        </nav>
      ) : null}
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Holders — Stampwise' }]
