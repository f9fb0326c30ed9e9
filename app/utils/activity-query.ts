import { z } from 'zod'
import { isUuid } from './uuid.ts'

/**
 * The activity's filters (/account/activity, its CSV, and the card page's insights): which card, who and where, in
 * the address of a GET form, so they work without JavaScript and a link keeps them. The same schema checks the query
 * on the server and the form in the browser; the server then checks that each value is one of the owner's own
 * choices (app/services/activity/activity-filter.server.ts). Pure: the pages use it in the browser too.
 *
 * person: 'owner' (the owner themself), 'support' (Stampwise's admins who acted on the owner's cards) or a staff
 * member's id; location: 'none' (events recorded without a location) or a location's id.
 */
export const CHOOSE_CARD = 'Choose a card from the list'
export const CHOOSE_PERSON = 'Choose a person from the list'
export const CHOOSE_LOCATION = 'Choose a location from the list'

export const OWNER_PERSON = 'owner'
export const SUPPORT_PERSON = 'support'
export const NO_LOCATION = 'none'

const choice = (valid: (value: string) => boolean, message: string) =>
  z
    .string({ error: message })
    .trim()
    .max(100, message)
    .refine(valid, message)
    .transform((value) => value.toLowerCase())
    .optional()

export const ActivityFilterSchema = z.object({
  person: choice((value) => value === OWNER_PERSON || value === SUPPORT_PERSON || isUuid(value), CHOOSE_PERSON),
  location: choice((value) => value === NO_LOCATION || isUuid(value), CHOOSE_LOCATION),
})

export const ActivityQuerySchema = ActivityFilterSchema.extend({
  card: choice(isUuid, CHOOSE_CARD),
})

export type ActivityFilter = z.output<typeof ActivityFilterSchema>
export type ActivityQuery = z.output<typeof ActivityQuerySchema>

export const ACTIVITY_PER_PAGE = 50

/** The query's values as address parameters, empty ones left out. */
export function activityParams(query: ActivityQuery): URLSearchParams {
  const params = new URLSearchParams()
  if (query.card) params.set('card', query.card)
  if (query.person) params.set('person', query.person)
  if (query.location) params.set('location', query.location)
  return params
}

/** The address of a page of the activity (`after`: the cursor of the last row before it), or of its CSV. */
export function activityHref(query: ActivityQuery, { after, csv = false }: { after?: string; csv?: boolean } = {}) {
  const params = activityParams(query)
  if (after) params.set('after', after)
  const search = params.toString()
  return `/account/activity${csv ? '.csv' : ''}${search ? `?${search}` : ''}`
}

/** What happened, in the owner's words: 'Stamped ×2', 'Undid 2 stamps', 'Redeemed the reward'. */
export function actionText(kind: 'stamp' | 'undo' | 'redeem', count: number): string {
  if (kind === 'redeem') return 'Redeemed the reward'
  if (kind === 'undo') return count === 1 ? 'Undid 1 stamp' : `Undid ${count} stamps`
  return count === 1 ? 'Stamped 1' : `Stamped ${count}`
}
