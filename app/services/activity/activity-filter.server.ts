import { parseWithZod } from '@conform-to/zod/v4'
import { type z } from 'zod'
import {
  CHOOSE_CARD,
  CHOOSE_LOCATION,
  CHOOSE_PERSON,
  NO_LOCATION,
  OWNER_PERSON,
  SUPPORT_PERSON,
  type ActivityFilterSchema,
  type ActivityQuerySchema,
} from '#app/utils/activity-query.ts'
import {
  activityCards,
  activityLocations,
  activityStaff,
  supportActedFor,
  type ActivityKey,
} from '#models/activity.server.ts'
import { NO_LOCATION_LABEL, removedLabel, SUPPORT_NAME } from './activity-labels.ts'

/**
 * The activity's filters against the owner's own choices: their cards, themself, their staff (removed ones marked)
 * and Stampwise support once it acted on their cards, their locations (removed ones marked) and 'no location'. A
 * value that is not one of them (a typed address, another owner's card or staff member) is a 400 with the field's
 * message, like a value the form could not send: nobody learns whether it exists.
 */
export type Option = readonly [value: string, label: string]
export type ActivityChoices = { cards: Option[]; people: Option[]; locations: Option[] }

export async function activityChoices(
  ownerId: string,
  { withCards = true }: { withCards?: boolean } = {},
): Promise<ActivityChoices & { hasTeamOrPlaces: boolean }> {
  // The card page filters one card's insights: it has no card to choose.
  const [cards, staff, locations, supportActed] = await Promise.all([
    withCards ? activityCards(ownerId) : [],
    activityStaff(ownerId),
    activityLocations(ownerId),
    supportActedFor(ownerId),
  ])
  return {
    cards: cards.map((card) => [card.id, card.status === 'archived' ? `${card.title} (archived)` : card.title]),
    people: [
      [OWNER_PERSON, 'You'],
      ...staff.map((member): Option => [member.id, removedLabel(member.name, member.removed)]),
      // Only when support acted on the owner's cards: a new owner's list names nobody who never stamped.
      ...(supportActed ? [[SUPPORT_PERSON, SUPPORT_NAME] as const] : []),
    ],
    locations: [
      [NO_LOCATION, NO_LOCATION_LABEL],
      ...locations.map((location): Option => [location.id, removedLabel(location.name, location.removed)]),
    ],
    hasTeamOrPlaces: staff.length > 0 || locations.length > 0,
  }
}

/** The fields of the schema from the address, first value each: a field repeated in a typed address counts once. */
function formValues(searchParams: URLSearchParams, names: string[]) {
  const values = new URLSearchParams()
  for (const name of names) {
    const value = searchParams.get(name)
    if (value !== null) values.set(name, value)
  }
  return values
}

const has = (options: Option[], value: string | undefined) =>
  value === undefined || options.some(([option]) => option === value)

/** The query checked by the schema, then against the owner's choices (each miss a message on its field). */
export function parseActivityFilter<Schema extends typeof ActivityQuerySchema | typeof ActivityFilterSchema>(
  searchParams: URLSearchParams,
  schema: Schema,
  choices: ActivityChoices,
) {
  return parseWithZod(formValues(searchParams, Object.keys(schema.shape)), {
    schema: (schema as z.ZodType<{ card?: string; person?: string; location?: string }>).superRefine(
      (value, context) => {
        if (!has(choices.cards, value.card)) context.addIssue({ code: 'custom', path: ['card'], message: CHOOSE_CARD })
        if (!has(choices.people, value.person)) {
          context.addIssue({ code: 'custom', path: ['person'], message: CHOOSE_PERSON })
        }
        if (!has(choices.locations, value.location)) {
          context.addIssue({ code: 'custom', path: ['location'], message: CHOOSE_LOCATION })
        }
      },
    ),
  })
}

/**
 * The list's `after` cursor: a row's place in the newest-first order (its time to the microsecond and its id) as an
 * opaque base64url string, checked in full before it reaches SQL (a typed or cut address is a 400, never a 500).
 */
export const BAD_CURSOR_MESSAGE = 'This page link is not valid any more. Start again from the newest.'
const AT_VALUE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const ID_VALUE = /^[1-9]\d{0,17}$/

export const encodeActivityCursor = (key: ActivityKey) =>
  Buffer.from(`${key.at}|${key.id}`, 'utf8').toString('base64url')

/** The cursor asked for: null when none, 'bad' when one is given that is not one. */
export function requestedActivityCursor(searchParams: URLSearchParams): ActivityKey | null | 'bad' {
  const cursor = searchParams.get('after')
  if (cursor === null) return null
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return 'bad'
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|')
  if (rest.length || at === undefined || id === undefined || !AT_VALUE.test(at) || !ID_VALUE.test(id)) return 'bad'
  // A real instant: month 13 or 31 February read back differently. JavaScript has a year 0 that PostgreSQL has not
  // (a 500 there); no event is older than 1970 anyway.
  const date = new Date(`${at.slice(0, 23)}Z`)
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 23) !== at.slice(0, 23)) return 'bad'
  if (date.getUTCFullYear() < 1970) return 'bad'
  return { at, id }
}
