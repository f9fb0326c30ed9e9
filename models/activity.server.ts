import { NO_LOCATION, OWNER_PERSON, SUPPORT_PERSON } from '#app/utils/activity-query.ts'
import { selectRows } from './transaction.server.ts'

/*
 * The owner's activity (/account/activity, its CSV, the card page's filtered insights): the stamp events of their
 * cards with who did each (stamp_events.actor_id) and where (location_id, migration 0014). Every query is scoped by
 * the owner: a card, person or location of another owner matches nothing.
 */

/** Who and where, already checked to be the owner's own choices (app/services/activity/activity-filter.server.ts). */
export type EventFilter = { cardId?: string; person?: string; location?: string }

/**
 * The filter as SQL on stamp events `e` (with `:ownerId` bound), and its replacements. 'support' is any admin: the
 * admins' own pages act on an owner's card with the admin as the actor.
 */
export function eventFilterSql(filter: EventFilter): { sql: string; replacements: Record<string, string> } {
  const conditions: string[] = []
  const replacements: Record<string, string> = {}
  if (filter.cardId) {
    conditions.push('e.card_id = cast(:filterCardId as uuid)')
    replacements.filterCardId = filter.cardId
  }
  if (filter.person === OWNER_PERSON) conditions.push('e.actor_id = cast(:ownerId as uuid)')
  else if (filter.person === SUPPORT_PERSON) {
    conditions.push(`e.actor_id in (select a.id from users a where a.role = 'admin')`)
  } else if (filter.person) {
    conditions.push('e.actor_id = cast(:filterPersonId as uuid)')
    replacements.filterPersonId = filter.person
  }
  if (filter.location === NO_LOCATION) conditions.push('e.location_id is null')
  else if (filter.location) {
    conditions.push('e.location_id = cast(:filterLocationId as uuid)')
    replacements.filterLocationId = filter.location
  }
  return { sql: conditions.map((condition) => `and ${condition}`).join(' '), replacements }
}

export type ActivityCardChoice = { id: string; title: string; status: string }
export type ActivityPersonChoice = { id: string; name: string; removed: boolean }
export type ActivityLocationChoice = { id: string; name: string; removed: boolean }

/** The owner's cards (drafts have no stamps), oldest first. */
export function activityCards(ownerId: string) {
  return selectRows<ActivityCardChoice>(
    `select c.id, coalesce(nullif(c.title, ''), nullif(c.business_name, ''), 'Untitled card') as title, c.status
     from cards c where c.user_id = :ownerId and c.status <> 'draft'
     order by c.created_at, c.id`,
    { ownerId },
  )
}

/**
 * The owner's staff, removed ones too (their stamps stay theirs), by name. An invitation never taken up has no
 * password and did nothing: it is not a person to filter by.
 */
export function activityStaff(ownerId: string) {
  return selectRows<ActivityPersonChoice>(
    `select u.id, u.staff_name as name, u.removed_at is not null as removed
     from users u
     where u.employer_id = :ownerId and u.role = 'staff' and u.password_hash is not null
     order by u.staff_name, u.created_at, u.id`,
    { ownerId },
  )
}

/**
 * Whether Stampwise support (any admin, from the admin's card pages) ever stamped, undid or redeemed on the owner's
 * cards: only then is support a person to filter by. Few admins with few events each: the actor index answers it.
 */
export async function supportActedFor(ownerId: string): Promise<boolean> {
  const [row] = await selectRows<{ acted: boolean }>(
    `select exists (
       select 1 from users a join stamp_events e on e.actor_id = a.id join cards c on c.id = e.card_id
       where a.role = 'admin' and c.user_id = :ownerId
     ) as acted`,
    { ownerId },
  )
  return row?.acted ?? false
}

/** The owner's locations, removed ones too (the events keep them), oldest first. */
export function activityLocations(ownerId: string) {
  return selectRows<ActivityLocationChoice>(
    `select l.id, l.name, l.removed_at is not null as removed
     from locations l where l.owner_id = :ownerId
     order by l.created_at, l.id`,
    { ownerId },
  )
}

/** A row's place in the newest-first order: its time to the microsecond (as text) and its id. */
export type ActivityKey = { at: string; id: string }

export type ActivityRow = {
  id: string
  /** created_at as UTC text to the microsecond: the keyset's cursor, exact on the way back. */
  cursor_at: string
  created_at: Date
  at_s: number
  at_offset_s: number
  kind: 'stamp' | 'undo' | 'redeem'
  count: number
  overridden: boolean
  undone: boolean
  card_id: string
  card_title: string
  /** Null for a holder who removed their card (the event stays, its pass is gone). */
  pass_id: string | null
  short_code: string | null
  actor_id: string | null
  actor_role: 'owner' | 'admin' | 'staff' | null
  staff_name: string | null
  actor_employer_id: string | null
  actor_removed: boolean
  location_id: string | null
  location_name: string | null
  location_removed: boolean
}

const CURSOR_AT = `to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/**
 * One page of the owner's events matching the filter, newest first (created_at, id), after `after`. Times come with
 * their epoch seconds and the business's offset at that instant (the CSV formats them without Intl per row). Each
 * page is its own statement: the CSV holds no transaction across pages.
 */
export function activityPage(
  ownerId: string,
  filter: EventFilter,
  after: ActivityKey | null,
  limit: number,
): Promise<ActivityRow[]> {
  const where = eventFilterSql(filter)
  // `<=` on created_at lets the indexes on (…, created_at) start at the cursor; the rest skips the equal times
  // already shown.
  const afterCursor = after
    ? `and e.created_at <= cast(:afterAt as timestamptz)
       and (e.created_at < cast(:afterAt as timestamptz) or e.id < cast(:afterId as bigint))`
    : ''
  // A person or a location has an index of its own on (…, created_at) that yields the owner's events in order. Without
  // one (every event, or those at no location), no index orders events across cards: one scan would read and sort
  // every event the owner has for each page (about a second at 300,000), so each card's newest `limit` come from its
  // (card_id, created_at) index and are merged, at most cards × limit rows a page.
  const byPersonOrPlace = Boolean(filter.person) || (Boolean(filter.location) && filter.location !== NO_LOCATION)
  const events = byPersonOrPlace
    ? `join stamp_events e on e.card_id = c.id ${where.sql} ${afterCursor}`
    : `cross join lateral (
         select e.* from stamp_events e
         where e.card_id = c.id ${where.sql} ${afterCursor}
         order by e.created_at desc, e.id desc
         limit :limit
       ) e`
  return selectRows<ActivityRow>(
    `select e.id::text as id, ${CURSOR_AT} as cursor_at, e.created_at,
            floor(extract(epoch from e.created_at))::float8 as at_s,
            extract(epoch from (e.created_at at time zone o.time_zone) - (e.created_at at time zone 'UTC'))::int
              as at_offset_s,
            e.kind, e.count, e.overridden, e.undone_at is not null as undone,
            c.id as card_id, coalesce(nullif(c.title, ''), nullif(c.business_name, ''), 'Untitled card') as card_title,
            p.id as pass_id, p.short_code,
            e.actor_id, a.role as actor_role, a.staff_name, a.employer_id as actor_employer_id,
            coalesce(a.removed_at is not null, false) as actor_removed,
            l.id as location_id, l.name as location_name, coalesce(l.removed_at is not null, false) as location_removed
     from users o
       join cards c on c.user_id = o.id
       ${events}
       left join passes p on p.id = e.pass_id
       left join users a on a.id = e.actor_id
       left join locations l on l.id = e.location_id and l.owner_id = o.id
     where o.id = :ownerId
     order by e.created_at desc, e.id desc
     limit :limit`,
    { ownerId, limit, afterAt: after?.at ?? null, afterId: after?.id ?? null, ...where.replacements },
  )
}
