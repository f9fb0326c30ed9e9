import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from './card.server.ts'
import { selectRows, withTransaction } from './transaction.server.ts'

/**
 * The owner's locations (migration 0014): their shops, each stamp, undo and redemption names one. Removed locations
 * stay for the activity's names and are never offered again. Every function is scoped by the owner.
 */

export type LocationChoice = { id: string; name: string }

/**
 * The condition on `locations l` of where an actor may stamp, given SQL expressions for the owner's id and the staff
 * member's id (null for the owner): for the owner, every location of theirs; for a staff member, those they belong
 * to (every location, should the owner not have placed them yet). Shared by actorLocations and the session lookup,
 * which carries the ids so a stamp checks its location without a round trip of its own.
 */
export const actorLocationsCondition = (owner: string, staff: string) => `l.owner_id = ${owner} and l.removed_at is null
  and (${staff} is null
       or not exists (select 1 from staff_locations s join locations sl on sl.id = s.location_id
                      where s.staff_id = ${staff} and sl.removed_at is null)
       or exists (select 1 from staff_locations s where s.staff_id = ${staff} and s.location_id = l.id))`

/** Oldest first, as the owner made them: the order the scan page offers and a single location defaults in. */
export const ACTOR_LOCATIONS_ORDER = 'l.created_at, l.id'

/**
 * Where an actor may stamp (actorLocationsCondition), oldest first. Empty: the business has none, and stamps record
 * no location.
 */
export async function actorLocations({
  ownerId,
  staffId,
}: {
  ownerId: string
  staffId?: string
}): Promise<LocationChoice[]> {
  return getSequelize().query<LocationChoice>(
    `select l.id, l.name from locations l
     where ${actorLocationsCondition(':ownerId', 'cast(:staffId as uuid)')}
     order by ${ACTOR_LOCATIONS_ORDER}`,
    { replacements: { ownerId, staffId: staffId ?? null }, type: QueryTypes.SELECT },
  )
}

/** The location `id` when the actor may stamp there (actorLocations), else null. */
export async function actorLocation(
  id: string,
  actor: { ownerId: string; staffId?: string },
): Promise<LocationChoice | null> {
  if (!isUuid(id)) return null
  return (await actorLocations(actor)).find((location) => location.id === id) ?? null
}

/** A location as the owner's page shows it, with the staff members (not removed) who work there. */
export type OwnedLocation = {
  id: string
  name: string
  address: string
  latitude: number | null
  longitude: number | null
  staffIds: string[]
}

/** A staff member the owner can place at a location: not removed (an invited or suspended one too). */
export type StaffChoice = { id: string; name: string; email: string }

/** The owner's locations that are not removed, oldest first (as actorLocations orders them). */
export async function listOwnedLocations(ownerId: string): Promise<OwnedLocation[]> {
  if (!isUuid(ownerId)) return []
  const rows = await selectRows<OwnedLocation>(
    `select l.id, l.name, l.address, l.latitude, l.longitude,
            coalesce((select array_agg(s.staff_id order by u.staff_name, u.id) from staff_locations s
                      join users u on u.id = s.staff_id and u.removed_at is null
                      where s.location_id = l.id), '{}') as "staffIds"
     from locations l where l.owner_id = :ownerId and l.removed_at is null
     order by l.created_at, l.id`,
    { ownerId },
  )
  return rows.map((row) => ({
    ...row,
    latitude: row.latitude === null ? null : Number(row.latitude),
    longitude: row.longitude === null ? null : Number(row.longitude),
  }))
}

/** The owner's staff members who are not removed, by name. */
export async function listStaffChoices(ownerId: string): Promise<StaffChoice[]> {
  if (!isUuid(ownerId)) return []
  return selectRows<StaffChoice>(
    `select u.id, u.staff_name as name, u.email from users u
     where u.employer_id = :ownerId and u.role = 'staff' and u.removed_at is null
     order by u.staff_name, u.id`,
    { ownerId },
  )
}

export type LocationFields = {
  name: string
  address: string
  latitude: number | null
  longitude: number | null
  staffIds: string[]
}

/**
 * Who works at the location: exactly `staffIds` among the owner's staff not removed. A removed member's rows stay
 * (history), and an id that is no staff member of this owner is skipped (removed since the form was checked).
 */
async function saveStaffOfLocation(
  { ownerId, locationId, staffIds }: { ownerId: string; locationId: string; staffIds: string[] },
  transaction: Transaction,
) {
  const replacements = { ownerId, locationId, staffIds: staffIds.length ? staffIds : [NO_ID] }
  await selectRows(
    `delete from staff_locations s using users u
     where s.location_id = :locationId and u.id = s.staff_id and u.employer_id = :ownerId and u.removed_at is null
       and s.staff_id not in (:staffIds)
     returning s.staff_id`,
    replacements,
    transaction,
  )
  await selectRows(
    `insert into staff_locations (staff_id, location_id)
     select u.id, :locationId from users u
     where u.id in (:staffIds) and u.employer_id = :ownerId and u.role = 'staff' and u.removed_at is null
     on conflict do nothing
     returning staff_id`,
    replacements,
    transaction,
  )
}

/** An id no row has: `in (…)` needs at least one value. */
const NO_ID = '00000000-0000-0000-0000-000000000000'

/**
 * Adds a location, unless the owner has LOCATIONS_MAX already: the owner's row is locked, so two adds at once cannot
 * both pass the count. Its insert moves the owner's cards' locations_changed_at (migration 0014's trigger), and with
 * it their Apple passes.
 *
 * The owner's cards are locked before the owner's row, in the order every card write takes them: a card's update
 * holds its row and then its trigger (bump_owner_content_version, 0004) updates the owner's. Locking the owner first
 * and the cards in the insert's trigger after was the opposite order, and a card saved meanwhile deadlocked with the
 * add (one of them a 500). `for no key update`, what the trigger's update takes anyway: passes may still be inserted
 * and stamped (their foreign key to the card needs only a key share lock). A card created meanwhile is not locked
 * here, and needs no lock: the trigger's update does not wait for a row it cannot see yet.
 */
export async function addOwnedLocation(
  ownerId: string,
  fields: LocationFields,
  max: number,
): Promise<{ id: string } | 'limit'> {
  return withTransaction(async (transaction) => {
    await selectRows(
      `select id from cards where user_id = :ownerId order by id for no key update`,
      { ownerId },
      transaction,
    )
    await selectRows(`select id from users where id = :ownerId for update`, { ownerId }, transaction)
    const [{ count }] = (await selectRows<{ count: number }>(
      `select count(*)::int as count from locations where owner_id = :ownerId and removed_at is null`,
      { ownerId },
      transaction,
    )) as [{ count: number }]
    if (count >= max) return 'limit'
    const [row] = await selectRows<{ id: string }>(
      `insert into locations (owner_id, name, address, latitude, longitude)
       values (:ownerId, :name, :address, :latitude, :longitude) returning id`,
      { ownerId, ...fields },
      transaction,
    )
    await saveStaffOfLocation({ ownerId, locationId: row!.id, staffIds: fields.staffIds }, transaction)
    return { id: row!.id }
  })
}

/**
 * Saves the owner's location (not removed); false when there is none. The row is written only when its name, address
 * or place changed: an update moves every pass of the owner's cards in Apple Wallet (migration 0014's trigger), and
 * who works there is not on the pass.
 */
export async function updateOwnedLocation(ownerId: string, locationId: string, fields: LocationFields) {
  if (!isUuid(ownerId) || !isUuid(locationId)) return false
  return withTransaction(async (transaction) => {
    const [found] = await selectRows<{ id: string }>(
      `select id from locations where id = :locationId and owner_id = :ownerId and removed_at is null for update`,
      { ownerId, locationId },
      transaction,
    )
    if (!found) return false
    await selectRows(
      `update locations set name = :name, address = :address, latitude = :latitude, longitude = :longitude
       where id = :locationId
         and (name, address, latitude, longitude) is distinct from
             (cast(:name as text), cast(:address as text), cast(:latitude as double precision),
              cast(:longitude as double precision))
       returning id`,
      { locationId, ...fields },
      transaction,
    )
    await saveStaffOfLocation({ ownerId, locationId, staffIds: fields.staffIds }, transaction)
    return true
  })
}

/**
 * Removes the owner's location softly: the row stays so stamp events keep naming where they happened; it is no longer
 * listed, offered to staff or carried by passes. Answers its name, or null when there is no such location.
 */
export async function removeOwnedLocation(ownerId: string, locationId: string): Promise<string | null> {
  if (!isUuid(ownerId) || !isUuid(locationId)) return null
  const [row] = await selectRows<{ name: string }>(
    `update locations set removed_at = now()
     where id = :locationId and owner_id = :ownerId and removed_at is null returning name`,
    { ownerId, locationId },
  )
  return row?.name ?? null
}
