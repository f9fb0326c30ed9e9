import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { type SubscriptionStatus } from '#app/utils/plan-status.ts'

/**
 * The admin's users list and key figures (issue #7), written for 100,000 owners: every condition here is one that
 * an index of migrations 0001 and 0006 serves, so a search never reads the whole users table.
 */

export type AdminUserSort = 'newest' | 'oldest' | 'email' | 'email-desc'
/** A plan's tier (1 Basic, 2 Standard, 3 Premium), or 'none' for no plan chosen (or no subscription at all). */
export type AdminPlanFilter = 1 | 2 | 3 | 'none'

export type AdminUsersFilter = {
  /** Lower-case. Starts with '@': the domain part ends with the rest; otherwise the e-mail starts with it. */
  search?: string
  status?: SubscriptionStatus
  plan?: AdminPlanFilter
}

export type AdminUserRow = {
  id: string
  email: string
  role: 'owner' | 'admin'
  disabled: boolean
  status: SubscriptionStatus | null
  plan: string | null
  cards: number
  createdAt: Date
}

/** A page of the list: from the start (offset), or after / before a row of the page next to it (keyset). */
export type AdminUsersPageRequest = { sort: AdminUserSort; limit: number; few?: boolean } & (
  { offset: number } | { after: string } | { before: string }
)

const ORDER: Record<AdminUserSort, { forward: string; backward: string }> = {
  newest: { forward: 'u.created_at desc, u.id desc', backward: 'u.created_at, u.id' },
  oldest: { forward: 'u.created_at, u.id', backward: 'u.created_at desc, u.id desc' },
  email: { forward: 'u.email', backward: 'u.email desc' },
  'email-desc': { forward: 'u.email desc', backward: 'u.email' },
}

/**
 * Rows after (or before) the cursor row in each order. The cursor is a user id, looked up once (an InitPlan), so
 * the condition is a range on the order's index: a page deep in the list costs what the first one does.
 */
const byCreated = (operator: '<' | '>') =>
  `(u.created_at, u.id) ${operator} (select created_at, id from users where id = :cursor)`
const byEmail = (operator: '<' | '>') => `u.email ${operator} (select email from users where id = :cursor)`
const KEYSET: Record<AdminUserSort, { after: string; before: string }> = {
  newest: { after: byCreated('<'), before: byCreated('>') },
  oldest: { after: byCreated('>'), before: byCreated('<') },
  email: { after: byEmail('>'), before: byEmail('<') },
  'email-desc': { after: byEmail('<'), before: byEmail('>') },
}

/** LIKE treats %, _ and \ specially: a search for "a_b" means those three characters. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`)
const reverseText = (text: string) => [...text].reverse().join('')

/**
 * The conditions and their replacements. The prefix search is `email like 'abc%'` (users_email_prefix_idx, or the
 * unique index where the collation is C); the domain search is a prefix of the reversed e-mail
 * (users_email_reverse_idx). Both are ranges of an index, never a scan of every user.
 */
function filterConditions({ search, status, plan }: AdminUsersFilter) {
  const conditions: string[] = []
  const replacements: Record<string, unknown> = {}
  if (search?.startsWith('@')) {
    const domainEnd = search.slice(1)
    // An e-mail has one @: no domain part ends with another.
    if (domainEnd.includes('@')) conditions.push('false')
    else if (domainEnd) {
      conditions.push(`reverse(u.email) like :pattern`)
      replacements.pattern = `${escapeLike(reverseText(domainEnd))}%`
    }
  } else if (search) {
    conditions.push(`u.email like :pattern`)
    replacements.pattern = `${escapeLike(search)}%`
  }
  if (status) {
    conditions.push(`s.status = :status`)
    replacements.status = status
  }
  if (plan === 'none') conditions.push(`s.tariff_id is null`)
  else if (plan) {
    conditions.push(`s.tariff_id = (select id from tariffs where tier = :tier)`)
    replacements.tier = plan
  }
  return { conditions, replacements }
}

const whereSql = (conditions: string[]) => (conditions.length ? `where ${conditions.join(' and ')}` : '')

/** A statement and its replacements: the queries below, and the benchmark's EXPLAIN of the same text. */
export type Statement = { sql: string; replacements: Record<string, unknown> }

/** How many users match. */
export function countUsersStatement(filter: AdminUsersFilter): Statement {
  const { conditions, replacements } = filterConditions(filter)
  // Every subscription has one user: a filter on subscriptions alone is counted on their indexes, without users.
  if (!filter.search && (filter.status || (filter.plan && filter.plan !== 'none'))) {
    return { sql: `select count(*)::int as count from subscriptions s ${whereSql(conditions)}`, replacements }
  }
  // Users without a subscription have no plan: 'none' keeps the outer join.
  const join = filter.status || filter.plan ? 'left join subscriptions s on s.user_id = u.id' : ''
  return { sql: `select count(*)::int as count from users u ${join} ${whereSql(conditions)}`, replacements }
}

/**
 * Up to `limit` users of a page, in the page's order; read backwards (and so in reverse order) for `before`.
 * The page's ids are found first, joining subscriptions only when a filter needs them; the columns shown are read
 * for those rows alone. The columns are named: never a password hash.
 *
 * `few`: the filter matches few users (its count says so). Then they are all read by the filter's own index (the
 * e-mail's, or the subscription status's) and sorted, a cost bounded by their number. Otherwise PostgreSQL walks
 * the order's index and keeps the rows that match, which stops after one page when many do, but would walk the
 * whole index for a search that matches almost nobody if the planner, misjudging how many match, chose that way.
 */
export function listUsersStatement(filter: AdminUsersFilter, request: AdminUsersPageRequest): Statement {
  const { conditions, replacements } = filterConditions(filter)
  const backward = 'before' in request
  const position: string[] = []
  if ('after' in request || 'before' in request) {
    position.push(KEYSET[request.sort][backward ? 'before' : 'after'])
    replacements.cursor = 'after' in request ? request.after : request.before
  }
  const join = filter.status || filter.plan ? 'left join subscriptions s on s.user_id = u.id' : ''
  const order = backward ? ORDER[request.sort].backward : ORDER[request.sort].forward
  const pageIds = request.few
    ? `with matches as materialized (select u.id, u.created_at, u.email from users u ${join} ${whereSql(conditions)})
       select u.id from matches u ${whereSql(position)} order by ${order} limit :limit offset :offset`
    : `select u.id from users u ${join} ${whereSql([...conditions, ...position])}
      order by ${order} limit :limit offset :offset`
  return {
    sql: `select u.id, u.email, u.role, u.disabled_at as "disabledAt", u.created_at as "createdAt", s.status,
                 t.name as plan,
                 (select count(*)::int from cards c where c.user_id = u.id) as cards
          from (${pageIds}) page
          join users u on u.id = page.id
          left join subscriptions s on s.user_id = u.id
          left join tariffs t on t.id = s.tariff_id
          order by ${order}`,
    replacements: { ...replacements, limit: request.limit, offset: 'offset' in request ? request.offset : 0 },
  }
}

export async function countAdminUsers(filter: AdminUsersFilter): Promise<number> {
  const { sql, replacements } = countUsersStatement(filter)
  const [row] = await getSequelize().query<{ count: number }>(sql, { replacements, type: QueryTypes.SELECT })
  return row!.count
}

/** The rows of listUsersStatement: a `before` request's come nearest-first, so in reverse order. */
export async function listAdminUsers(
  filter: AdminUsersFilter,
  request: AdminUsersPageRequest,
): Promise<AdminUserRow[]> {
  const { sql, replacements } = listUsersStatement(filter, request)
  const rows = await getSequelize().query<Omit<AdminUserRow, 'disabled'> & { disabledAt: Date | null }>(sql, {
    replacements,
    type: QueryTypes.SELECT,
  })
  return rows.map(({ disabledAt, ...row }) => ({ ...row, disabled: disabledAt !== null }))
}

export type AdminFigures = {
  owners: number
  ownersByStatus: Record<SubscriptionStatus, number>
  activeCards: number
  holders: number
  /** Owners' messages queued since the start of the month (UTC), and automatic stamp and reward pushes. */
  messagesThisMonth: number
  automaticPushesThisMonth: number
  trialsEndingThisWeek: number
}

type FiguresMoments = { monthStart: Date; now: Date; weekEnd: Date }

/** The key figures above the list, in one statement: each part is an index-only count (passes: a count of all). */
export function figuresStatement({ monthStart, now, weekEnd }: FiguresMoments): Statement {
  return {
    sql: `select
       (select count(*) from subscriptions where status = 'trial')::int as trial,
       (select count(*) from subscriptions where status = 'waiting_payment')::int as waiting_payment,
       (select count(*) from subscriptions where status = 'active')::int as active,
       (select count(*) from subscriptions where status = 'cancelled')::int as cancelled,
       (select count(*) from subscriptions where status = 'ended')::int as ended,
       (select count(*) from cards where status = 'active')::int as active_cards,
       (select count(*) from passes)::int as holders,
       (select count(*) from notifications where queued_at >= :monthStart and kind = 'message')::int as messages,
       (select count(*) from notifications where queued_at >= :monthStart and kind <> 'message')::int as automatic,
       (select count(*) from subscriptions where status = 'trial' and trial_ends_at > :now
         and trial_ends_at <= :weekEnd)::int as trials_ending`,
    replacements: { monthStart, now, weekEnd },
  }
}

export async function getAdminFigures(moments: FiguresMoments): Promise<AdminFigures> {
  const { sql, replacements } = figuresStatement(moments)
  const [row] = await getSequelize().query<Record<string, number>>(sql, { replacements, type: QueryTypes.SELECT })
  const r = row!
  return {
    // Every owner has one subscription (so has an admin who signed up as one): the sum is the number of owners.
    owners: r.trial! + r.waiting_payment! + r.active! + r.cancelled! + r.ended!,
    ownersByStatus: {
      trial: r.trial!,
      waiting_payment: r.waiting_payment!,
      active: r.active!,
      cancelled: r.cancelled!,
      ended: r.ended!,
    },
    activeCards: r.active_cards!,
    holders: r.holders!,
    messagesThisMonth: r.messages!,
    automaticPushesThisMonth: r.automatic!,
    trialsEndingThisWeek: r.trials_ending!,
  }
}
