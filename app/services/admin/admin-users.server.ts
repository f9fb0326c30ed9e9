import { monthStart, type SubscriptionStatus } from '#app/utils/plan-status.ts'
import {
  countAdminUsers,
  getAdminFigures,
  listAdminUsers,
  type AdminFigures,
  type AdminPlanFilter,
  type AdminUserRow,
  type AdminUserSort,
  type AdminUsersFilter,
} from '#models/admin-users.server.ts'

/**
 * What /admin shows: one page of the users list, its number of matches, and the key figures
 * (docs/decisions/019-admin-users-list.md).
 *
 * Counting is the one part whose cost grows with the data: PostgreSQL reads every matching index entry, about
 * 1 ms per 10,000 on the server and several times that on the embedded database, which runs on the app's own
 * thread. So the figures, and a number of matches of RECOUNT_FROM or more, are counted again at most every
 * MAX_AGE_MS per process, in the background: the answer that finds them older shows them as they are and starts
 * the count for the next ones (one count at a time per number). Smaller numbers are counted on every request.
 * `recount` counts everything on the spot (the page's "Count again" link). The rows and the Previous / Next links
 * never depend on a count: they come from the rows themselves.
 */
export const MAX_AGE_MS = 60_000
export const RECOUNT_FROM = 1_000
const MAX_KEPT = 200
const WEEK_MS = 7 * 24 * 60 * 60 * 1000

type Counted<T> = { value: T; countedAt: Date }

/** Counts kept for MAX_AGE_MS and then counted again in the background; `worthKeeping` says which to keep. */
class RecentCounts<T> {
  private kept = new Map<string, Counted<T>>()
  private counting = new Map<string, Promise<Counted<T>>>()

  constructor(private worthKeeping: (value: T) => boolean) {}

  async get(key: string, count: () => Promise<T>, { recount = false } = {}): Promise<Counted<T>> {
    const kept = this.kept.get(key)
    if (!kept || recount) return this.countNow(key, count)
    // A failed background count leaves the kept one in place; the next request tries again.
    if (Date.now() - kept.countedAt.getTime() >= MAX_AGE_MS) this.countNow(key, count).catch(() => {})
    return kept
  }

  /** One count at a time per key: whoever asks meanwhile shares it. */
  private countNow(key: string, count: () => Promise<T>) {
    let running = this.counting.get(key)
    if (!running) {
      const countedAt = new Date()
      running = count()
        .then((value) => {
          this.kept.delete(key)
          if (this.worthKeeping(value)) {
            this.kept.set(key, { value, countedAt })
            if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value!)
          }
          return { value, countedAt }
        })
        .finally(() => this.counting.delete(key))
      this.counting.set(key, running)
    }
    return running
  }
}

export type CountedFigures = AdminFigures & { countedAt: Date }
const figures = new RecentCounts<AdminFigures>(() => true)

export async function loadAdminFigures({ recount = false }: { recount?: boolean } = {}): Promise<CountedFigures> {
  const { value, countedAt } = await figures.get(
    'figures',
    () => {
      const now = new Date()
      return getAdminFigures({ monthStart: monthStart(now), now, weekEnd: new Date(now.getTime() + WEEK_MS) })
    },
    { recount },
  )
  return { ...value, countedAt }
}

/** Only numbers of RECOUNT_FROM or more are kept: a small one (a search for one owner) is always exact. */
const matchCounts = new RecentCounts<number>((total) => total >= RECOUNT_FROM)

async function countMatches(filter: AdminUsersFilter, recount: boolean) {
  const key = JSON.stringify([filter.search, filter.status, filter.plan])
  return (await matchCounts.get(key, () => countAdminUsers(filter), { recount })).value
}

/**
 * How to read a page: from all the matches, sorted (`few`), or by walking the order's index and keeping the matching
 * rows. Reading m matches costs about m rows; the walk finds the `need` rows it must pass (the offset and the page)
 * among n users after about need × n / m index entries, each a lookup of the user's subscription that costs several
 * times a row read (WALK_ROW_COST, measured at 100,000 owners: `npm run bench:admin-search`). So the walk wins only
 * when m² > WALK_ROW_COST × need × n: page 1 of a filter matching 3 % of 100,000 owners reads them all (about 3 ms
 * where the walk took 15–50 ms), a filter matching 30 % walks.
 */
const WALK_ROW_COST = 4
const readsAllMatches = (matches: number, need: number, everyone: number) =>
  matches * matches <= WALK_ROW_COST * need * everyone

const PLAN_TIERS: Record<string, AdminPlanFilter> = { basic: 1, standard: 2, premium: 3, none: 'none' }

export type UsersPageQuery = { q?: string; status?: SubscriptionStatus; plan?: string; sort: AdminUserSort }
/** `after` / `before`: the id of the last row of the page before, or the first of the page after (Next, Previous). */
export type UsersPagePosition = { page: number; after?: string; before?: string }

export type UsersPage = {
  users: AdminUserRow[]
  page: number
  pages: number
  total: number
  previous: { page: number; before?: string } | null
  next: { page: number; after: string } | null
}

type PageRead = { rows: AdminUserRow[]; page: number; hasPrevious: boolean; hasNext: boolean }
type ReadOptions = { sort: AdminUserSort; perPage: number; few: boolean }

/** One row more than a page tells whether there is another page that way. */
async function readPageAt(
  filter: AdminUsersFilter,
  { sort, perPage, few }: ReadOptions,
  page: number,
): Promise<PageRead> {
  const rows = await listAdminUsers(filter, { sort, few, limit: perPage + 1, offset: (page - 1) * perPage })
  return { rows: rows.slice(0, perPage), page, hasPrevious: page > 1, hasNext: rows.length > perPage }
}

/** The page after a row (Next) or before it (Previous); null when that row is gone. */
async function readPageNextTo(
  filter: AdminUsersFilter,
  { sort, perPage, few }: ReadOptions,
  position: UsersPagePosition,
): Promise<PageRead | null> {
  const limit = perPage + 1
  if (position.before) {
    const rows = await listAdminUsers(filter, { sort, few, limit, before: position.before })
    if (!rows.length) return null
    const hasPrevious = rows.length > perPage
    // Nothing before it: this is the first page, whatever the address said.
    return {
      rows: rows.slice(0, perPage).reverse(),
      page: hasPrevious ? Math.max(2, position.page) : 1,
      hasPrevious,
      hasNext: true,
    }
  }
  const rows = await listAdminUsers(filter, { sort, few, limit, after: position.after! })
  if (!rows.length) return null
  return {
    rows: rows.slice(0, perPage),
    page: Math.max(2, position.page),
    hasPrevious: true,
    hasNext: rows.length > perPage,
  }
}

export async function findAdminUsersPage(
  query: UsersPageQuery,
  position: UsersPagePosition,
  { perPage, recount = false }: { perPage: number; recount?: boolean },
): Promise<UsersPage> {
  const filter: AdminUsersFilter = {
    search: query.q || undefined,
    status: query.status,
    plan: query.plan ? PLAN_TIERS[query.plan] : undefined,
  }
  // The count first: it tells how to read the page.
  const total = await countMatches(filter, recount)
  // A page next to a row seeks the index to it: only the page itself is walked. A page by number passes the offset.
  const need = position.after || position.before ? perPage + 1 : position.page * perPage + 1
  // Under RECOUNT_FROM matches reading them all is always cheap. Without a filter the walk reads the order's index
  // alone (nothing to check per row), so it always wins. Otherwise the number of users (a kept count) decides; a
  // page by number deep in the list needs at most all the matches.
  const filtered = Boolean(filter.search || filter.status || filter.plan)
  const few =
    total < RECOUNT_FROM || (filtered && readsAllMatches(total, Math.min(need, total), await countMatches({}, false)))
  const read = { sort: query.sort, perPage, few }
  let found = position.after || position.before ? await readPageNextTo(filter, read, position) : null
  // No cursor, or one whose row is gone: the page by number; past the end (an old link), the last page.
  found ??= await readPageAt(filter, read, position.page)
  if (!found.rows.length && found.page > 1)
    found = await readPageAt(filter, read, Math.max(1, Math.ceil(total / perPage)))

  const { rows, page, hasPrevious, hasNext } = found
  const first = rows[0]
  const last = rows.at(-1)
  return {
    users: rows,
    page,
    // A count up to MAX_AGE_MS old must not hide a page that exists, nor end the list before this one.
    pages: Math.max(Math.ceil(total / perPage), page + (hasNext ? 1 : 0), 1),
    total: Math.max(total, (page - 1) * perPage + rows.length),
    previous: hasPrevious && first ? (page === 2 ? { page: 1 } : { page: page - 1, before: first.id }) : null,
    next: hasNext && last ? { page: page + 1, after: last.id } : null,
  }
}
