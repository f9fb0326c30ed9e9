import crypto from 'node:crypto'
import { hashPassword } from '#app/services/auth/password.server.ts'
import { OWNER_PASSWORD, sql, type TestOwner } from './e2e-database.ts'

/**
 * Browser tests' staff (issue 20), made directly in the app's database like tests/support/staff-member.ts does for
 * the integration tests: a staff member of `ownerId` who has set their password, and the owner's locations. The
 * invitation flow itself is tested through /account/team.
 */
let passwordHash: Promise<string> | undefined

export async function createStaffMember(
  ownerId: string,
  { name = 'Anna', locationIds = [] as string[] } = {},
): Promise<TestOwner & { name: string }> {
  passwordHash ??= hashPassword(OWNER_PASSWORD)
  const email = `staff-${Date.now().toString(36)}-${crypto.randomBytes(4).toString('hex')}@example.com`
  const [user] = await sql<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at, role, employer_id, staff_name)
     values ($1, $2, now(), 'staff', $3, $4) returning id`,
    [email, await passwordHash, ownerId, name],
  )
  for (const locationId of locationIds) {
    await sql(`insert into staff_locations (staff_id, location_id) values ($1, $2)`, [user!.id, locationId])
  }
  return { id: user!.id, email, password: OWNER_PASSWORD, name }
}

export async function createLocation(ownerId: string, name: string, address = '1 Main Street') {
  const [row] = await sql<{ id: string }>(
    `insert into locations (owner_id, name, address) values ($1, $2, $3) returning id`,
    [ownerId, name, address],
  )
  return { id: row!.id, name }
}
