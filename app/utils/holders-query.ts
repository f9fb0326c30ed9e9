import { z } from 'zod'

/**
 * The holders list's GET form (/account/{cardId}/holders): filter, search by short code and order live in the
 * address, so the list works without JavaScript and a link keeps them. The same schema checks the query on the
 * server and the form in the browser. Pure: the page uses it in the browser too.
 */
export const HOLDER_FILTER_OPTIONS = [
  ['all', 'All holders'],
  ['inactive', 'No visit for 30+ days'],
  ['one-to-go', 'One stamp from the reward'],
  ['reward-waiting', 'Reward waiting'],
] as const
export const HOLDER_SORT_OPTIONS = [
  ['last-visit', 'Last visit, newest first'],
  ['stamps', 'Stamps, most first'],
] as const

export type HolderFilter = (typeof HOLDER_FILTER_OPTIONS)[number][0]
export type HolderSort = (typeof HOLDER_SORT_OPTIONS)[number][0]

const values = <T extends readonly (readonly [string, string])[]>(options: T) =>
  options.map(([value]) => value) as unknown as [T[number][0], ...T[number][0][]]

/** The short codes' alphabet (migration 0001's check): no I, O, 0 or 1, which read alike. */
export const SHORT_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
export const SHORT_CODE_LENGTH = 8
export const SHORT_CODE_CHARACTERS_MESSAGE = 'Short codes use letters and digits only (no I, O, 0 or 1)'

export const HoldersQuerySchema = z.object({
  filter: z.enum(values(HOLDER_FILTER_OPTIONS), { error: 'Choose a filter from the list' }).default('all'),
  sort: z.enum(values(HOLDER_SORT_OPTIONS), { error: 'Choose an order from the list' }).default('last-visit'),
  // As the holder reads it out: lower case, spaces and dashes ('abcd-2345') are the same code.
  q: z
    .string()
    .max(100, `A short code has ${SHORT_CODE_LENGTH} characters`)
    .transform((value) => value.toUpperCase().replace(/[\s-]+/g, ''))
    .pipe(
      z
        .string()
        .max(SHORT_CODE_LENGTH, `A short code has ${SHORT_CODE_LENGTH} characters`)
        .regex(new RegExp(`^[${SHORT_CODE_ALPHABET}]*$`), SHORT_CODE_CHARACTERS_MESSAGE),
    )
    .optional(),
})
export type HoldersQuery = z.output<typeof HoldersQuerySchema>

export const HOLDERS_PER_PAGE = 50

/** The address of a page of the list: the form's values (defaults left out) and the position's cursor. */
export function holdersListHref(
  cardId: string,
  query: HoldersQuery,
  position: { after?: string; before?: string } = {},
): string {
  const params = new URLSearchParams()
  if (query.filter !== 'all') params.set('filter', query.filter)
  if (query.q) params.set('q', query.q)
  if (query.sort !== 'last-visit') params.set('sort', query.sort)
  if (position.after) params.set('after', position.after)
  if (position.before) params.set('before', position.before)
  const search = params.toString()
  return `/account/${cardId}/holders${search ? `?${search}` : ''}`
}

/** How a holder is reached, in the owner's words: 'Web push, Google Wallet', or 'None'. */
export function reachText(reach: { webPush: boolean; appleWallet: boolean; googleWallet: boolean }): string {
  const ways = [
    reach.webPush ? 'Web push' : null,
    reach.appleWallet ? 'Apple Wallet' : null,
    reach.googleWallet ? 'Google Wallet' : null,
  ].filter(Boolean)
  return ways.length ? ways.join(', ') : 'None'
}
