import { createUser, logIn, sql, STRONG_PASSWORD, uniqueEmail } from './auth-api.ts'
import { type TestServer } from './test-server.ts'

/**
 * A staff member of `ownerId` who has set their password (migration 0014), made directly in the database: for tests
 * of what staff may do. The invitation flow itself is tested through /account/team (team.test.ts).
 */
export async function createStaffMember(
  ownerId: string,
  { email = uniqueEmail(), name = 'Anna', locationIds = [] as string[] } = {},
) {
  const user = await createUser({ email })
  await sql(`update users set role = 'staff', employer_id = :ownerId, staff_name = :name where id = :id`, {
    ownerId,
    name,
    id: user.id,
  })
  for (const locationId of locationIds) {
    await sql(`insert into staff_locations (staff_id, location_id) values (:id, :locationId)`, {
      id: user.id,
      locationId,
    })
  }
  return { ...user, name, password: STRONG_PASSWORD }
}

/** A staff member of `ownerId` signed in on `server`: the member and the session cookie. */
export async function signedInStaffMember(server: TestServer, ownerId: string, options?: { locationIds?: string[] }) {
  const member = await createStaffMember(ownerId, options)
  return { ...member, cookie: await logIn(server, member.email) }
}

/** One of the owner's locations, made directly in the database. */
export async function createLocation(ownerId: string, { name = 'Main Street', address = '1 Main Street' } = {}) {
  const [row] = await sql<{ id: string }>(
    `insert into locations (owner_id, name, address) values (:ownerId, :name, :address) returning id`,
    { ownerId, name, address },
  )
  return { id: row!.id, name, address }
}
