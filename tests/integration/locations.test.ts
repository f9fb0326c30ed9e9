import crypto from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { LOCATION_MESSAGES, LOCATIONS_MAX } from '#app/utils/location-schemas.ts'
import { actorLocations } from '#models/locations.server.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { createOwner, signedInOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { createLocation, createStaffMember } from '#tests/support/staff-member.ts'
import { useTestServer } from '#tests/support/test-server.ts'
import { createWalletCard, createWalletPass } from '#tests/support/wallet-device.ts'

/**
 * The locations page (/account/locations, issue 20): add, edit and remove through post/redirect/get; bad input
 * refused with the field's message and nothing stored; another owner's location answered 404; who works where
 * saved to staff_locations (only the owner's staff, not removed); removal soft, so stamps keep their place; at most
 * LOCATIONS_MAX. Runs on the embedded database, or the PostgreSQL server with TEST_DATABASE_URL.
 */
const server = useTestServer()
const PAGE = '/account/locations'

type LocationRow = {
  id: string
  name: string
  address: string
  latitude: number | null
  longitude: number | null
  removed_at: Date | null
}
const locationsOf = (ownerId: string) =>
  sql<LocationRow>(
    `select id, name, address, latitude, longitude, removed_at from locations where owner_id = :ownerId
     order by created_at, id`,
    { ownerId },
  )
const staffAt = async (locationId: string) =>
  (
    await sql<{ staff_id: string }>(
      `select staff_id from staff_locations where location_id = :locationId order by staff_id`,
      { locationId },
    )
  ).map((row) => row.staff_id)

const VALID = { intent: 'add', name: 'Baixa', address: 'Rua Augusta 1, Lisboa' }

describe('adding a location', () => {
  test('saves name, address, a position typed with a decimal comma and the staff who work there', async () => {
    const owner = await signedInOwner(server)
    const [anna, ben] = [await createStaffMember(owner.id, { name: 'Anna' }), await createStaffMember(owner.id)]
    const empty = await pageText(await server.get(PAGE, owner.cookie))
    expect(empty).toContain('No locations yet')
    expect(empty).toContain(anna.email)

    const response = await server.post(
      PAGE,
      { ...VALID, latitude: ' 38,7101 ', longitude: '−9.137', staffIds: [anna.id] },
      owner.cookie,
    )
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe(PAGE)
    const [row] = await locationsOf(owner.id)
    expect(row).toMatchObject({ name: 'Baixa', address: 'Rua Augusta 1, Lisboa', removed_at: null })
    expect([Number(row!.latitude), Number(row!.longitude)]).toEqual([38.7101, -9.137])
    expect(await staffAt(row!.id)).toEqual([anna.id])
    expect(await actorLocations({ ownerId: owner.id, staffId: anna.id })).toEqual([{ id: row!.id, name: 'Baixa' }])
    // Ben works nowhere yet: he may stamp at every location.
    expect(await actorLocations({ ownerId: owner.id, staffId: ben.id })).toHaveLength(1)

    const page = await pageText(await server.get(PAGE, owner.cookie))
    expect(page).toContain('1 of 50 locations.')
    expect(page).toContain('38.7101, -9.137: on Apple Wallet passes.')
    expect(page).toContain('Staff: Anna')
  })

  test('without a position, and the toast says so after the redirect', async () => {
    const owner = await signedInOwner(server)
    const response = await server.post(PAGE, VALID, owner.cookie)
    expect(response.status).toBe(302)
    const [row] = await locationsOf(owner.id)
    expect(row).toMatchObject({ latitude: null, longitude: null })
    const cookie = [owner.cookie, ...response.headers.getSetCookie().map((line) => line.split(';')[0])].join('; ')
    const page = await pageText(await server.get(PAGE, cookie))
    expect(page).toContain('“Baixa” added.')
    expect(page).toContain('No latitude and longitude: not on Apple Wallet passes.')
  })

  test.each([
    [{ name: '' }, LOCATION_MESSAGES.name],
    [{ name: 'N'.repeat(61) }, LOCATION_MESSAGES.nameLong],
    [{ name: 'Tab\there' }, LOCATION_MESSAGES.controls],
    [{ address: ' ' }, LOCATION_MESSAGES.address],
    [{ address: 'A'.repeat(201) }, LOCATION_MESSAGES.addressLong],
    [{ latitude: '91', longitude: '0' }, LOCATION_MESSAGES.latitude],
    [{ latitude: 'north', longitude: '0' }, LOCATION_MESSAGES.latitude],
    [{ latitude: '1e1', longitude: '0' }, LOCATION_MESSAGES.latitude],
    [{ latitude: '0', longitude: '-180.5' }, LOCATION_MESSAGES.longitude],
    [{ latitude: '38.7' }, LOCATION_MESSAGES.longitudeToo],
    [{ longitude: '-9.1' }, LOCATION_MESSAGES.latitudeToo],
    [{ staffIds: crypto.randomUUID() }, LOCATION_MESSAGES.staff],
    [{ staffIds: 'not-an-id' }, LOCATION_MESSAGES.staff],
  ])('refuses %o with 400 and its message, storing nothing', async (change, message) => {
    const owner = await signedInOwner(server)
    const response = await server.post(PAGE, { ...VALID, ...change }, owner.cookie)
    expect(response.status).toBe(400)
    expect(await pageText(response)).toContain(message)
    expect(await locationsOf(owner.id)).toEqual([])
  })

  test('another owner’s staff member, or a removed one of ours, cannot be placed', async () => {
    const owner = await signedInOwner(server)
    const other = await createOwner()
    const stranger = await createStaffMember(other.id)
    const gone = await createStaffMember(owner.id, { name: 'Gone' })
    await sql(`update users set removed_at = now() where id = :id`, { id: gone.id })
    for (const staffId of [stranger.id, gone.id]) {
      const response = await server.post(PAGE, { ...VALID, staffIds: staffId }, owner.cookie)
      expect(response.status).toBe(400)
      expect(await pageText(response)).toContain(LOCATION_MESSAGES.staff)
    }
    expect(await locationsOf(owner.id)).toEqual([])
    expect(await pageText(await server.get(PAGE, owner.cookie))).not.toContain(gone.email)
  })

  test(`at most ${LOCATIONS_MAX}: the next is refused with 409 and the page says why`, async () => {
    const owner = await signedInOwner(server)
    await sql(
      `insert into locations (owner_id, name, address) select :ownerId, 'Shop ' || n, 'Street ' || n
       from generate_series(1, :count) n`,
      { ownerId: owner.id, count: LOCATIONS_MAX },
    )
    const refused = await server.post(PAGE, VALID, owner.cookie)
    expect(refused.status).toBe(409)
    expect(await pageText(refused)).toContain(LOCATION_MESSAGES.limit)
    expect(await locationsOf(owner.id)).toHaveLength(LOCATIONS_MAX)
    // A removed one frees its place.
    await sql(`update locations set removed_at = now() where owner_id = :ownerId and name = 'Shop 1'`, {
      ownerId: owner.id,
    })
    expect((await server.post(PAGE, VALID, owner.cookie)).status).toBe(302)
  })

  test('two adds at once at the limit: only one passes', async () => {
    const owner = await signedInOwner(server)
    await sql(
      `insert into locations (owner_id, name, address) select :ownerId, 'Shop ' || n, 'Street ' || n
       from generate_series(1, :count) n`,
      { ownerId: owner.id, count: LOCATIONS_MAX - 1 },
    )
    const statuses = await Promise.all([server.post(PAGE, VALID, owner.cookie), server.post(PAGE, VALID, owner.cookie)])
    expect(statuses.map((response) => response.status).sort()).toEqual([302, 409])
    expect(
      await sql(`select 1 from locations where owner_id = :ownerId and removed_at is null`, { ownerId: owner.id }),
    ).toHaveLength(LOCATIONS_MAX)
  })

  // The embedded database serves one connection at a time: a second one cannot hold the card's lock meanwhile.
  test.skipIf(!usingServer())('a card saved while a location is added: both go through, no deadlock', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createWalletCard(owner.id)
    const sequelize = getSequelize()
    const save = await sequelize.transaction()
    let adding: Promise<Response> | undefined
    try {
      // A card's save holds its row, then (its trigger, bump_owner_content_version) updates the owner's row. The
      // pause between the two is what a busy server gives the add to take the owner's row in between.
      await sequelize.query(`select id from cards where id = :cardId for no key update`, {
        replacements: { cardId },
        transaction: save,
      })
      adding = server.post(PAGE, { ...VALID, latitude: '38.71', longitude: '-9.13' }, owner.cookie)
      await new Promise((resolve) => setTimeout(resolve, 300))
      await sequelize.query(`update cards set title = 'Tea card' where id = :cardId`, {
        replacements: { cardId },
        transaction: save,
      })
      await save.commit()
    } catch (error) {
      await save.rollback()
      await adding
      throw error
    }
    expect((await adding).status).toBe(302)
    const [card] = await sql<{ title: string; locations_changed_at: Date | null }>(
      `select title, locations_changed_at from cards where id = :cardId`,
      { cardId },
    )
    expect(card!.title).toBe('Tea card')
    expect(card!.locations_changed_at).not.toBeNull()
    expect(await locationsOf(owner.id)).toHaveLength(1)
  })
})

describe('editing and removing', () => {
  test('an edit saves the fields and who works there; a removed member’s history stays', async () => {
    const owner = await signedInOwner(server)
    const location = await createLocation(owner.id)
    const [anna, ben, gone] = [
      await createStaffMember(owner.id, { locationIds: [location.id] }),
      await createStaffMember(owner.id),
      await createStaffMember(owner.id, { locationIds: [location.id] }),
    ]
    await sql(`update users set removed_at = now() where id = :id`, { id: gone.id })
    const response = await server.post(
      PAGE,
      {
        intent: 'edit',
        locationId: location.id,
        name: 'Chiado',
        address: 'Largo do Chiado 2',
        latitude: '38.7107',
        longitude: '-9.1424',
        staffIds: [ben.id],
      },
      owner.cookie,
    )
    expect(response.status).toBe(302)
    const [row] = await locationsOf(owner.id)
    expect(row).toMatchObject({ name: 'Chiado', address: 'Largo do Chiado 2' })
    expect(Number(row!.latitude)).toBe(38.7107)
    expect(await staffAt(location.id)).toEqual([ben.id, gone.id].sort())
    expect(await actorLocations({ ownerId: owner.id, staffId: anna.id })).toEqual([{ id: location.id, name: 'Chiado' }])

    // Nobody ticked: nobody (still not removed) works there; the position cleared.
    expect(
      (
        await server.post(
          PAGE,
          { intent: 'edit', locationId: location.id, name: 'Chiado', address: 'Largo do Chiado 2' },
          owner.cookie,
        )
      ).status,
    ).toBe(302)
    expect(await staffAt(location.id)).toEqual([gone.id])
    expect((await locationsOf(owner.id))[0]).toMatchObject({ latitude: null, longitude: null })
  })

  test('a bad edit is refused in its own form, which stays open', async () => {
    const owner = await signedInOwner(server)
    const location = await createLocation(owner.id)
    const response = await server.post(
      PAGE,
      { intent: 'edit', locationId: location.id, name: '', address: location.address },
      owner.cookie,
    )
    expect(response.status).toBe(400)
    const page = await pageText(response)
    expect(page).toContain(LOCATION_MESSAGES.name)
    expect(page).toMatch(/<details class="locations__edit" open="">/)
    expect((await locationsOf(owner.id))[0]!.name).toBe(location.name)
  })

  test('only a change the pass shows moves the owner’s cards for Apple Wallet', async () => {
    const owner = await signedInOwner(server)
    const staff = await createStaffMember(owner.id)
    const [card] = await sql<{ id: string }>(
      `insert into cards (user_id, slug, status, title, business_name) values (:ownerId, :slug, 'active', 'Card', 'Shop')
       returning id`,
      { ownerId: owner.id, slug: `loc-${crypto.randomBytes(5).toString('hex')}` },
    )
    const location = await createLocation(owner.id)
    const changedAt = async () =>
      (
        await sql<{ at: Date | null }>(`select locations_changed_at as at from cards where id = :id`, {
          id: card!.id,
        })
      )[0]!.at?.getTime()
    // A location without a position is not on the pass: adding it moves nothing.
    expect(await changedAt()).toBeUndefined()
    const edit = { intent: 'edit', locationId: location.id, name: location.name, address: location.address }
    // Only who works there: the pass does not show it.
    expect((await server.post(PAGE, { ...edit, staffIds: staff.id }, owner.cookie)).status).toBe(302)
    expect(await changedAt()).toBeUndefined()
    expect((await server.post(PAGE, { ...edit, latitude: '1', longitude: '2' }, owner.cookie)).status).toBe(302)
    const located = await changedAt()
    expect(located).toBeDefined()
    // Its name and address are not on the pass either (the pass says the business is nearby).
    expect(
      (await server.post(PAGE, { ...edit, name: 'Renamed', latitude: '1', longitude: '2' }, owner.cookie)).status,
    ).toBe(302)
    expect(await changedAt()).toBe(located)
    expect((await server.post(PAGE, { ...edit, latitude: '1.5', longitude: '2' }, owner.cookie)).status).toBe(302)
    expect(await changedAt()).toBeGreaterThan(located!)
  })

  test('removal is soft: stamps keep their place, staff links stay, the location is no longer offered', async () => {
    const owner = await signedInOwner(server)
    const location = await createLocation(owner.id, { name: 'Old kiosk' })
    const staff = await createStaffMember(owner.id, { locationIds: [location.id] })
    const [card] = await sql<{ id: string }>(
      `insert into cards (user_id, slug, status, title) values (:ownerId, :slug, 'active', 'Card') returning id`,
      { ownerId: owner.id, slug: `loc-${crypto.randomBytes(5).toString('hex')}` },
    )
    const pass = await createWalletPass(card!.id)
    await sql(
      `insert into stamp_events (pass_id, card_id, actor_id, kind, count, location_id)
       values (:passId, :cardId, :staffId, 'stamp', 1, :locationId)`,
      { passId: pass!.id, cardId: card!.id, staffId: staff.id, locationId: location.id },
    )
    const response = await server.post(PAGE, { intent: 'remove', locationId: location.id }, owner.cookie)
    expect(response.status).toBe(302)
    const [row] = await locationsOf(owner.id)
    expect(row!.removed_at).not.toBeNull()
    expect(
      await sql(`select l.name from stamp_events e join locations l on l.id = e.location_id where e.pass_id = :id`, {
        id: pass!.id,
      }),
    ).toEqual([{ name: 'Old kiosk' }])
    expect(await staffAt(location.id)).toEqual([staff.id])
    expect(await actorLocations({ ownerId: owner.id, staffId: staff.id })).toEqual([])
    const page = await pageText(await server.get(PAGE, owner.cookie))
    expect(page).not.toContain('Old kiosk')
    // Removed already: 404, as is editing it.
    expect((await server.post(PAGE, { intent: 'remove', locationId: location.id }, owner.cookie)).status).toBe(404)
    expect((await server.post(PAGE, { ...VALID, intent: 'edit', locationId: location.id }, owner.cookie)).status).toBe(
      404,
    )
  })
})

describe('scoping', () => {
  test('another owner’s location is 404 to edit or remove, and unchanged; a bad id too; the page lists only mine', async () => {
    const owner = await signedInOwner(server)
    const other = await createOwner()
    const theirs = await createLocation(other.id, { name: 'Their shop' })
    for (const form of <Record<string, string>[]>[
      { ...VALID, intent: 'edit', locationId: theirs.id },
      { intent: 'remove', locationId: theirs.id },
      { intent: 'remove', locationId: 'not-a-uuid' },
      { intent: 'remove' },
      { ...VALID, intent: 'edit', locationId: crypto.randomUUID() },
    ]) {
      const response = await server.post(PAGE, form, owner.cookie)
      expect(response.status, JSON.stringify(form)).toBe(404)
      expect(await pageText(response)).toContain(LOCATION_MESSAGES.notFound)
    }
    expect(await locationsOf(other.id)).toEqual([expect.objectContaining({ name: 'Their shop', removed_at: null })])
    expect(await pageText(await server.get(PAGE, owner.cookie))).not.toContain('Their shop')
  })

  test('an unknown intent is 400 with a message; a staff member gets 404 for the page', async () => {
    const owner = await signedInOwner(server)
    const response = await server.post(PAGE, { intent: 'rename' }, owner.cookie)
    expect(response.status).toBe(400)
    expect(await pageText(response)).toContain('We could not understand that request')
    const staff = await createStaffMember(owner.id)
    const cookie = await logIn(server, staff.email)
    expect((await server.get(PAGE, cookie)).status).toBe(404)
    expect((await server.post(PAGE, VALID, cookie)).status).toBe(404)
    expect(await locationsOf(owner.id)).toEqual([])
  })
})
