import { z } from 'zod'
import { isUuid } from '#app/utils/uuid.ts'

/**
 * The /admin users list's search form: a GET form, so the search, filters, order and page live in the address and
 * work without JavaScript. The same schema checks the query on the server and the form in the browser.
 */
export const USER_STATUS_OPTIONS = [
  ['trial', 'Free trial'],
  ['waiting_payment', 'Waiting for payment'],
  ['active', 'Active'],
  ['cancelled', 'Cancelled'],
  ['ended', 'Ended'],
] as const
export const PLAN_OPTIONS = [
  ['basic', 'Basic'],
  ['standard', 'Standard'],
  ['premium', 'Premium'],
  ['none', 'No plan'],
] as const
export const SORT_OPTIONS = [
  ['newest', 'Newest first'],
  ['oldest', 'Oldest first'],
  ['email', 'E-mail A–Z'],
  ['email-desc', 'E-mail Z–A'],
] as const

const values = <T extends readonly (readonly [string, string])[]>(options: T) =>
  options.map(([value]) => value) as unknown as [T[number][0], ...T[number][0][]]

export const SEARCH_MAX = 254

export const UsersQuerySchema = z.object({
  q: z
    .string()
    .trim()
    .toLowerCase()
    .max(SEARCH_MAX, `Search with at most ${SEARCH_MAX} characters (an e-mail address is never longer)`)
    .optional(),
  status: z.enum(values(USER_STATUS_OPTIONS), { error: 'Choose a subscription status from the list' }).optional(),
  plan: z.enum(values(PLAN_OPTIONS), { error: 'Choose a plan from the list' }).optional(),
  sort: z.enum(values(SORT_OPTIONS), { error: 'Choose an order from the list' }).default('newest'),
})
export type UsersQuery = z.output<typeof UsersQuerySchema>

export const PER_PAGE = 50

/**
 * Where in the list: ?page= (not part of the form: a new search starts at page 1), and the Previous / Next links'
 * ?before= / ?after= (a user id). Anything but a whole number ≥ 1 is page 1; a cursor that is not an id is ignored.
 */
export function requestedPosition(searchParams: URLSearchParams) {
  const raw = searchParams.get('page') ?? '1'
  // A number past the end shows the last page: a huge one is just further past it.
  const page = /^\d+$/.test(raw) ? Math.max(1, Math.min(Number(raw), 1_000_000_000)) : 1
  const cursor = (name: string) => {
    const value = searchParams.get(name)
    return isUuid(value) ? value.toLowerCase() : undefined
  }
  const after = cursor('after')
  return { page, after, before: after ? undefined : cursor('before') }
}

/** The address of a page of the current list: the form's values (the default order left out) and the position. */
export function usersListHref(query: UsersQuery, position: { page: number; after?: string; before?: string }) {
  const params = new URLSearchParams()
  if (query.q) params.set('q', query.q)
  if (query.status) params.set('status', query.status)
  if (query.plan) params.set('plan', query.plan)
  if (query.sort !== 'newest') params.set('sort', query.sort)
  if (position.page > 1) params.set('page', String(position.page))
  if (position.after) params.set('after', position.after)
  if (position.before) params.set('before', position.before)
  const search = params.toString()
  return search ? `/admin?${search}` : '/admin'
}
