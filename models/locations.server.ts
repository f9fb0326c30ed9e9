import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from './card.server.ts'

/**
 * The owner's locations (migration 0014): their shops, each stamp, undo and redemption names one. Removed locations
 * stay for the activity's names and are never offered again. Every function is scoped by the owner.
 */

export type LocationChoice = { id: string; name: string }

/**
 * Where an actor may stamp: for the owner, every location of theirs; for a staff member, those they belong to (every
 * location, should the owner not have placed them yet). Oldest first, as the owner made them. Empty: the business has
 * none, and stamps record no location.
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
     where l.owner_id = :ownerId and l.removed_at is null
       and (cast(:staffId as uuid) is null
            or not exists (select 1 from staff_locations s join locations sl on sl.id = s.location_id
                           where s.staff_id = :staffId and sl.removed_at is null)
            or exists (select 1 from staff_locations s where s.staff_id = :staffId and s.location_id = l.id))
     order by l.created_at, l.id`,
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
