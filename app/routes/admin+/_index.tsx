import { getFormProps, getInputProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { DataTable, type Column } from '#app/components/data-table.tsx'
import { FieldErrors } from '#app/components/forms.tsx'
import { SelectField } from '#app/components/select-field.tsx'
import { appleWalletStatus } from '#app/server/apple-wallet-config.server.ts'
import { getEnv } from '#app/server/env.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { googleWalletStatus } from '#app/server/google-wallet-config.server.ts'
import { findAdminUsersPage, loadAdminFigures, type CountedFigures } from '#app/services/admin/admin-users.server.ts'
import { requireAdmin } from '#app/services/admin/admin.server.ts'
import { formatDate } from '#app/utils/plan-format.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import {
  PER_PAGE,
  PLAN_OPTIONS,
  requestedPosition,
  SORT_OPTIONS,
  USER_STATUS_OPTIONS,
  UsersQuerySchema,
  usersListHref,
} from './__users-query.ts'
import { WalletStatus, type WalletStatusView } from './__wallet-status.tsx'

/**
 * /admin: every account, searched, filtered, ordered and paged on the server (models/admin-users.server.ts), with
 * the key figures above. A query the form could not have sent (an unknown status, a 300-character search) is a 400
 * that shows the form with the reason; a page number that is not one shows page 1, one past the end the last page.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request)
  const url = new URL(request.url)
  const submission = parseWithZod(formValues(url.searchParams), { schema: UsersQuerySchema })
  const recount = url.searchParams.has('recount')
  const wallets = walletStatusView()
  if (submission.status !== 'success') {
    const figures = figuresView(await loadAdminFigures({ recount }))
    return formReply({ result: submission.reply(), query: null, list: null, figures, wallets })
  }
  const query = submission.value
  const [counted, list] = await Promise.all([
    loadAdminFigures({ recount }),
    findAdminUsersPage(query, requestedPosition(url.searchParams), { perPage: PER_PAGE, recount }),
  ])
  const users = list.users.map((user) => ({ ...user, createdAt: formatDate(user.createdAt) }))
  return { result: submission.reply(), query, list: { ...list, users }, figures: figuresView(counted), wallets }
}

function walletStatusView(): WalletStatusView {
  const env = getEnv()
  const apple = appleWalletStatus(env)
  return {
    appleWallet: { ...apple, certExpiresAt: apple.certExpiresAt?.toISOString() ?? null },
    googleWallet: googleWalletStatus(env),
  }
}

/** The form's fields, first value each: a field repeated in a typed address counts once. */
function formValues(searchParams: URLSearchParams) {
  const values = new URLSearchParams()
  for (const name of Object.keys(UsersQuerySchema.shape)) {
    const value = searchParams.get(name)
    if (value !== null) values.set(name, value)
  }
  return values
}

const number = (value: number) => value.toLocaleString('en-US')

function figuresView({ countedAt, ...counts }: CountedFigures) {
  return { ...counts, countedAt: countedAt.toISOString().slice(11, 19) }
}

export default function AdminUsers() {
  const { result, query, list, figures, wallets } = useLoaderData<typeof loader>()
  const [form, fields] = useSchemaForm(UsersQuerySchema, { id: 'admin-users-search', lastResult: result })
  return (
    <>
      <h1>Users</h1>
      <KeyFigures
        figures={figures}
        recountHref={recountHref(query && list ? usersListHref(query, { page: 1 }) : '/admin')}
      />
      <WalletStatus status={wallets} />
      <Form method="GET" action="/admin" className="admin-search" {...getFormProps(form)}>
        <div className="field">
          <label htmlFor={fields.q.id}>E-mail</label>
          <input
            {...getInputProps(fields.q, { type: 'search', ariaDescribedBy: `${fields.q.id}-hint` })}
            key={fields.q.key}
          />
          <p id={`${fields.q.id}-hint`} className="field-hint">
            The start of the address, or @ and the end of its domain (@example.com)
          </p>
          <FieldErrors id={fields.q.errorId} errors={fields.q.errors} />
        </div>
        <SelectField meta={fields.status} label="Subscription" anyLabel="Any status" options={USER_STATUS_OPTIONS} />
        <SelectField meta={fields.plan} label="Plan" anyLabel="Any plan" options={PLAN_OPTIONS} />
        <SelectField meta={fields.sort} label="Order" options={SORT_OPTIONS} />
        <div className="admin-search__actions">
          <button type="submit" className="button">
            Search
          </button>
          <Link to="/admin">Clear</Link>
        </div>
      </Form>
      {list && query ? (
        <UsersTable list={list} query={query} />
      ) : (
        <p className="panel">Correct the search above to see users.</p>
      )}
    </>
  )
}

type LoadedList = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>['list']>
type LoadedQuery = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>['query']>

const statusText = Object.fromEntries(USER_STATUS_OPTIONS) as Record<string, string>

const userColumns: Column<LoadedList['users'][number]>[] = [
  {
    header: 'E-mail',
    cell: (user) => (
      <>
        <Link to={`/admin/users/${user.id}`}>{user.email}</Link>
        {user.disabled ? <span className="badge">disabled</span> : null}
      </>
    ),
  },
  { header: 'Role', cell: (user) => user.role },
  { header: 'Subscription', cell: (user) => (user.status ? statusText[user.status] : '—') },
  { header: 'Plan', cell: (user) => user.plan ?? '—' },
  { header: 'Cards', cell: (user) => user.cards },
  { header: 'Created', cell: (user) => user.createdAt },
]

const noUsers = <p className="panel">No users match this search.</p>

function UsersTable({ list, query }: { list: LoadedList; query: LoadedQuery }) {
  const { users, total, page, pages, previous, next } = list
  // Without users there is no count or pager either, so the empty sentence is returned here.
  if (!users.length) return noUsers
  return (
    <>
      <p className="admin-count">{total === 1 ? '1 user' : `${number(total)} users`}</p>
      <div className="admin-table-wrap">
        <DataTable rows={users} columns={userColumns} caption={`Users, page ${page} of ${pages}`} empty={noUsers} />
      </div>
      <nav aria-label="Pages" className="pager">
        {previous ? <Link to={usersListHref(query, previous)}>← Previous</Link> : <span />}
        <span>{`Page ${page} of ${pages}`}</span>
        {next ? <Link to={usersListHref(query, next)}>Next →</Link> : <span />}
      </nav>
    </>
  )
}

const recountHref = (href: string) => `${href}${href.includes('?') ? '&' : '?'}recount`

function KeyFigures({ figures, recountHref }: { figures: ReturnType<typeof figuresView>; recountHref: string }) {
  const byStatus = figures.ownersByStatus
  return (
    <section aria-labelledby="admin-figures-title" className="admin-figures">
      <h2 id="admin-figures-title" className="visually-hidden">
        Key figures
      </h2>
      <dl>
        <div>
          <dt>Owners</dt>
          <dd>{number(figures.owners)}</dd>
          <dd className="admin-figures__detail">
            {USER_STATUS_OPTIONS.map(([status, text]) => `${text} ${number(byStatus[status])}`).join(' · ')}
          </dd>
        </div>
        <div>
          <dt>Active cards</dt>
          <dd>{number(figures.activeCards)}</dd>
        </div>
        <div>
          <dt>Holders</dt>
          <dd>{number(figures.holders)}</dd>
        </div>
        <div>
          <dt>Pushes this month</dt>
          <dd>{number(figures.messagesThisMonth)}</dd>
          <dd className="admin-figures__detail">{`owners’ messages, and ${number(figures.automaticPushesThisMonth)} automatic`}</dd>
        </div>
        <div>
          <dt>Trials ending in 7 days</dt>
          <dd>{number(figures.trialsEndingThisWeek)}</dd>
        </div>
      </dl>
      <p className="field-hint">
        {`Counted at ${figures.countedAt} UTC. These figures, and numbers of matches from 1,000 up, are counted again every minute. `}
        <Link to={recountHref}>Count again</Link>
      </p>
    </section>
  )
}

export const meta: MetaFunction = () => [{ title: 'Users — Stampwise admin' }]
