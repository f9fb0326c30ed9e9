import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * What the staff counter (/staff) shows beyond the owner's scan page: who is signed in and for which business.
 * Scoped by the employer: a staff member's row is found only with their owner's id.
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
