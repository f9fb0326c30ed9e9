import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from './card.server.ts'

/**
 * What the staff counter (/staff) shows beyond the owner's scan page: who is signed in and for which business, and
 * whose stamp a pass's newest event is (staff may undo only their own). Scoped by the employer: a staff member's
 * row is found only with their owner's id.
 */

export type StaffCounterHeader = { staffName: string; businessName: string | null }

/**
 * The staff member's name and the business they stamp for: the owner has no business name of their own, so it is
 * the one on their cards (the oldest card not archived, else the oldest).
 */
export async function getStaffCounterHeader({
  staffId,
  ownerId,
}: {
  staffId: string
  ownerId: string
}): Promise<StaffCounterHeader | null> {
  const [row] = await getSequelize().query<{ staff_name: string; business_name: string | null }>(
    `select s.staff_name,
            (select nullif(c.business_name, '') from cards c where c.user_id = s.employer_id
             order by c.status = 'archived', c.created_at limit 1) as business_name
     from users s where s.id = :staffId and s.employer_id = :ownerId and s.role = 'staff'`,
    { replacements: { staffId, ownerId }, type: QueryTypes.SELECT },
  )
  return row ? { staffName: row.staff_name, businessName: row.business_name } : null
}

/** Who made the newest event of a pass of the owner's card (null: none, or not a pass of theirs). */
export async function newestEventActor({
  ownerId,
  cardId,
  passId,
}: {
  ownerId: string
  cardId: string
  passId: string
}): Promise<string | null> {
  if (!isUuid(passId) || !isUuid(cardId)) return null
  const [row] = await getSequelize().query<{ actor_id: string | null }>(
    `select e.actor_id from stamp_events e join cards c on c.id = e.card_id
     where e.pass_id = :passId and e.card_id = :cardId and c.user_id = :ownerId
     order by e.id desc limit 1`,
    { replacements: { passId, cardId, ownerId }, type: QueryTypes.SELECT },
  )
  return row?.actor_id ?? null
}
