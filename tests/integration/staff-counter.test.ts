import crypto from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql, STRONG_PASSWORD } from '#tests/support/auth-api.ts'
import { createLocation, createStaffMember, signedInStaffMember } from '#tests/support/staff-member.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * The staff counter (issue 20; docs/product/staff-locations-rules.md) over HTTP on the real database:
 * /staff lists the employer's cards, /staff/{cardId}/scan stamps, undoes the member's own stamp and redeems, each
 * recording who and where; the location is checked and remembered on the device; a stamping rule's refusal stands
 * for staff and the owner may override it; /staff/password ends the member's other sessions.
 */
const server = useTestServer()

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const newShortCode = () => Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')

async function createCard(ownerId: string, { stampsRequired = 3, title = 'Coffee card', pauseMinutes = 0 } = {}) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward, stamp_pause_minutes)
     values (:ownerId, :slug, 'active', :title, 'Corner Coffee', :stampsRequired, 'A free coffee', :pauseMinutes)
     returning id`,
    { ownerId, slug: `staff-${crypto.randomBytes(6).toString('hex')}`, stampsRequired, title, pauseMinutes },
  )
  return card!.id
}

async function createPass(cardId: string, stamps = 0) {
  const shortCode = newShortCode()
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code, stamps) values (:cardId, :shortCode, :stamps) returning id`,
    { cardId, shortCode, stamps },
  )
  return { id: pass!.id, shortCode }
}

const events = (passId: string) =>
  sql<{ kind: string; actor_id: string; location_id: string | null; overridden: boolean }>(
    `select kind, actor_id, location_id, overridden from stamp_events where pass_id = :passId order by id`,
    { passId },
  )

/** The `name=value` of the location cookie a response sets, or undefined. */
const locationCookie = (response: Response) =>
  response.headers
    .getSetCookie()
    .find((line) => line.startsWith('stampwise_location='))
    ?.split(';')[0]

/** An owner with a card and a pass, and a signed-in staff member of theirs (at `locations`, if any). */
async function counter({ stampsRequired = 3, pauseMinutes = 0, locationNames = [] as string[] } = {}) {
  const owner = await createOwner()
  const cardId = await createCard(owner.id, { stampsRequired, pauseMinutes })
  const pass = await createPass(cardId)
  const locations = []
  for (const name of locationNames) locations.push(await createLocation(owner.id, { name }))
  const staff = await signedInStaffMember(server, owner.id, { locationIds: locations.map((location) => location.id) })
  return { owner, cardId, pass, staff, locations, scan: `/staff/${cardId}/scan` }
}

describe('/staff', () => {
  test('lists the employer’s cards (not another owner’s), each linking to its scan page', async () => {
    const { owner, cardId, staff } = await counter()
    const second = await createCard(owner.id, { title: 'Tea card' })
    const foreign = await createCard((await createOwner()).id, { title: 'Foreign card' })
    const page = await server.get('/staff', staff.cookie)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain(`href="/staff/${cardId}/scan"`)
    expect(html).toContain(`href="/staff/${second}/scan"`)
    expect(html).toContain('Tea card')
    expect(html).not.toContain(foreign)
    // The staff layout: the business, the member, the password page, log out; no owner page is linked.
    expect(html).toContain('Corner Coffee')
    expect(html).toContain(staff.name)
    expect(html).toContain('href="/staff/password"')
    expect(html).toContain('action="/logout"')
    expect(html).not.toContain('href="/account')
  })

  test('an owner gets 404; a guest goes to /login', async () => {
    const { owner } = await counter()
    const ownerCookie = await logIn(server, owner.email)
    expect((await server.get('/staff', ownerCookie)).status).toBe(404)
    const guest = await server.fetch('/staff')
    expect(guest.status).toBe(302)
    expect(guest.headers.get('Location')).toBe('/login?redirectTo=%2Fstaff')
  })
})

describe('/staff/{cardId}/scan', () => {
  test('a staff member stamps, undoes their own stamp and redeems; each event names them', async () => {
    const { pass, staff, scan } = await counter()
    const page = await server.get(scan, staff.cookie)
    expect(page.status).toBe(200)
    const form = await page.text()
    expect(form).toContain('name="code"')
    // No locations: no choice, and no override tick (staff never see it).
    expect(form).not.toContain('name="locationId"')
    expect(form).not.toContain('name="override"')

    const stamped = await server.post(scan, { intent: 'stamp', code: pass.shortCode, count: '2' }, staff.cookie)
    expect(stamped.status).toBe(302)
    expect(stamped.headers.get('Location')).toBe(`${scan}?pass=${pass.id}`)
    expect(locationCookie(stamped)).toBeUndefined()
    const shown = await (await server.get(`${scan}?pass=${pass.id}`, staff.cookie)).text()
    expect(shown).toContain('2 of 3 stamps')
    expect(shown).toContain('value="undo"')

    expect((await server.post(scan, { intent: 'undo', passId: pass.id }, staff.cookie)).status).toBe(302)
    expect((await server.post(scan, { intent: 'stamp', code: pass.shortCode, count: '3' }, staff.cookie)).status).toBe(
      302,
    )
    expect((await server.post(scan, { intent: 'redeem', passId: pass.id }, staff.cookie)).status).toBe(302)
    const [row] = await sql<{ stamps: number; rewards_redeemed: number }>(
      `select stamps, rewards_redeemed from passes where id = :id`,
      { id: pass.id },
    )
    expect(row).toEqual({ stamps: 0, rewards_redeemed: 1 })
    const recorded = await events(pass.id)
    expect(recorded.map((event) => event.kind)).toEqual(['stamp', 'undo', 'stamp', 'redeem'])
    expect(recorded.every((event) => event.actor_id === staff.id && event.location_id === null)).toBe(true)
  })

  test('a staff member cannot undo the owner’s stamp (no Undo shown, 409 when posted)', async () => {
    const { owner, cardId, pass, staff, scan } = await counter()
    const ownerCookie = await logIn(server, owner.email)
    expect(
      (await server.post(`/account/${cardId}/scan`, { intent: 'stamp', code: pass.shortCode }, ownerCookie)).status,
    ).toBe(302)
    const shown = await (await server.get(`${scan}?pass=${pass.id}`, staff.cookie)).text()
    expect(shown).toContain('1 of 3 stamps')
    expect(shown).not.toContain('value="undo"')
    const undo = await server.post(scan, { intent: 'undo', passId: pass.id }, staff.cookie)
    expect(undo.status).toBe(409)
    expect(await undo.text()).toContain('The last stamp can no longer be undone')
    // Nor another member's stamp.
    const colleague = await signedInStaffMember(server, owner.id)
    expect((await server.post(scan, { intent: 'stamp', code: pass.shortCode }, colleague.cookie)).status).toBe(302)
    expect((await server.post(scan, { intent: 'undo', passId: pass.id }, staff.cookie)).status).toBe(409)
    // The colleague may undo their own.
    expect((await server.post(scan, { intent: 'undo', passId: pass.id }, colleague.cookie)).status).toBe(302)
    expect((await events(pass.id)).map((event) => `${event.kind} ${event.actor_id}`)).toEqual([
      `stamp ${owner.id}`,
      `stamp ${colleague.id}`,
      `undo ${colleague.id}`,
    ])
  })

  test('another owner’s card, or its pass: 404, and nothing changes', async () => {
    const { staff } = await counter()
    const other = await counter()
    expect((await server.get(other.scan, staff.cookie)).status).toBe(404)
    expect((await server.post(other.scan, { intent: 'stamp', code: other.pass.shortCode }, staff.cookie)).status).toBe(
      404,
    )
    expect((await server.post(other.scan, { intent: 'redeem', passId: other.pass.id }, staff.cookie)).status).toBe(404)
    expect(await events(other.pass.id)).toEqual([])
    // The owner's scan page is the owner's: staff get 404 there too.
    expect((await server.get(`/account/${other.cardId}/scan`, other.staff.cookie)).status).toBe(404)
  })

  test('with several locations: the chosen one is recorded, checked, and remembered on the device', async () => {
    const { owner, pass, staff, locations, scan } = await counter({ locationNames: ['Main Street', 'Harbour'] })
    const [main, harbour] = [locations[0]!, locations[1]!]
    const elsewhere = await createLocation(owner.id, { name: 'Not theirs' })
    // A staff member placed at two of three locations is offered those two, none preselected yet.
    const first = await (await server.get(scan, staff.cookie)).text()
    expect(first).toContain('name="locationId"')
    expect(first).toContain('Harbour')
    expect(first).not.toContain('Not theirs')

    const missing = await server.post(scan, { intent: 'stamp', code: pass.shortCode }, staff.cookie)
    expect(missing.status).toBe(400)
    expect(await missing.text()).toContain('Choose where you are stamping')
    for (const locationId of [elsewhere.id, (await createLocation((await createOwner()).id)).id, 'not-a-uuid']) {
      const refused = await server.post(scan, { intent: 'stamp', code: pass.shortCode, locationId }, staff.cookie)
      expect(refused.status, locationId).toBe(400)
      expect(await refused.text()).toContain('Choose one of your locations')
    }
    expect(await events(pass.id)).toEqual([])

    const stamped = await server.post(
      scan,
      { intent: 'stamp', code: pass.shortCode, locationId: harbour.id },
      staff.cookie,
    )
    expect(stamped.status).toBe(302)
    const remembered = locationCookie(stamped)
    expect(remembered).toBeDefined()
    const device = `${staff.cookie}; ${remembered}`
    // The next visit preselects it, the layout names it, and undo and redeem carry it.
    const next = await (await server.get(`${scan}?pass=${pass.id}`, device)).text()
    expect(next).toMatch(new RegExp(`<option value="${harbour.id}" selected=""`))
    expect(next).toContain('at Harbour')
    expect(next).toContain(`name="locationId" value="${harbour.id}"`)
    expect((await server.post(scan, { intent: 'undo', passId: pass.id, locationId: harbour.id }, device)).status).toBe(
      302,
    )
    const refusedUndo = await server.post(scan, { intent: 'undo', passId: pass.id, locationId: elsewhere.id }, device)
    expect(refusedUndo.status).toBe(400)

    // The /staff page's small form moves the device to Main Street.
    const moved = await server.post('/staff', { intent: 'location', locationId: main.id }, device)
    expect(moved.status).toBe(302)
    const movedCookie = locationCookie(moved)
    expect(movedCookie).toBeDefined()
    expect(await (await server.get('/staff', `${staff.cookie}; ${movedCookie}`)).text()).toContain('at Main Street')
    const badMove = await server.post('/staff', { intent: 'location', locationId: elsewhere.id }, device)
    expect(badMove.status).toBe(400)
    expect(locationCookie(badMove)).toBeUndefined()

    // A remembered location that is not theirs (another member's device) preselects nothing.
    const colleague = await signedInStaffMember(server, owner.id, { locationIds: [elsewhere.id] })
    const theirs = await (await server.get(scan, `${colleague.cookie}; ${remembered}`)).text()
    expect(theirs).not.toContain('name="locationId"')
    expect(theirs).toContain('Location: <strong>Not theirs</strong>')

    expect(await events(pass.id)).toEqual([
      { kind: 'stamp', actor_id: staff.id, location_id: harbour.id, overridden: false },
      { kind: 'undo', actor_id: staff.id, location_id: harbour.id, overridden: false },
    ])
  })

  test('with one location it is used without a choice; a staff member not placed anywhere may use every one', async () => {
    const { owner, pass, staff, locations, scan } = await counter({ locationNames: ['Main Street'] })
    expect((await server.post(scan, { intent: 'stamp', code: pass.shortCode }, staff.cookie)).status).toBe(302)
    const unplaced = await createStaffMember(owner.id)
    const cookie = await logIn(server, unplaced.email)
    expect((await server.post(scan, { intent: 'stamp', code: pass.shortCode }, cookie)).status).toBe(302)
    expect((await events(pass.id)).map((event) => event.location_id)).toEqual([locations[0]!.id, locations[0]!.id])
  })

  test('a pause refuses staff with when it ends, override or not; the owner overrides and it is recorded', async () => {
    const { owner, cardId, pass, staff, scan } = await counter({ stampsRequired: 5, pauseMinutes: 120 })
    expect((await server.post(scan, { intent: 'stamp', code: pass.shortCode }, staff.cookie)).status).toBe(302)
    for (const fields of [{}, { override: 'on' }] as Record<string, string>[]) {
      const refused = await server.post(scan, { intent: 'stamp', code: pass.shortCode, ...fields }, staff.cookie)
      expect(refused.status).toBe(409)
      const html = await refused.text()
      // The time alone, or with the date when the pause ends after the business’s midnight.
      expect(html).toMatch(/the next stamp is possible at (\d{1,2} \w{3} \d{4}, )?\d{2}:\d{2}/)
      expect(html).not.toContain('name="override"')
    }
    const ownerCookie = await logIn(server, owner.email)
    const ownerScan = `/account/${cardId}/scan`
    const refused = await server.post(ownerScan, { intent: 'stamp', code: pass.shortCode }, ownerCookie)
    expect(refused.status).toBe(409)
    expect(await refused.text()).toContain('Override the rule and stamp anyway')
    const overridden = await server.post(
      ownerScan,
      { intent: 'stamp', code: pass.shortCode, override: 'on' },
      ownerCookie,
    )
    expect(overridden.status).toBe(302)
    expect((await events(pass.id)).map((event) => [event.actor_id, event.overridden])).toEqual([
      [staff.id, false],
      [owner.id, true],
    ])
  })

  test('inside the pause, more stamps than a scan allows: both rules shown, staff never past them', async () => {
    const { owner, cardId, pass, staff, scan } = await counter({ stampsRequired: 10, pauseMinutes: 120 })
    await sql(`update cards set max_stamps_per_scan = 3 where id = :cardId`, { cardId })
    expect((await server.post(scan, { intent: 'stamp', code: pass.shortCode }, staff.cookie)).status).toBe(302)
    for (const count of ['5', '3']) {
      const refused = await server.post(
        scan,
        { intent: 'stamp', code: pass.shortCode, count, override: 'on' },
        staff.cookie,
      )
      expect(refused.status).toBe(409)
      const html = await refused.text()
      expect(html).toContain('This card was stamped recently: the next stamp is possible at')
      // The per-scan limit only for the count over it; the pause in both answers.
      expect(html.includes('This card allows at most 3 stamps per scan')).toBe(count === '5')
      expect(html).not.toContain('name="override"')
    }
    const ownerCookie = await logIn(server, owner.email)
    const ownerScan = `/account/${cardId}/scan`
    const refused = await server.post(ownerScan, { intent: 'stamp', code: pass.shortCode, count: '5' }, ownerCookie)
    expect(refused.status).toBe(409)
    const html = await refused.text()
    expect(html).toContain('This card was stamped recently: the next stamp is possible at')
    expect(html).toContain('This card allows at most 3 stamps per scan')
    expect(html).toContain('Override the rule and stamp anyway')
    const overridden = await server.post(
      ownerScan,
      { intent: 'stamp', code: pass.shortCode, count: '5', override: 'on' },
      ownerCookie,
    )
    expect(overridden.status).toBe(302)
    expect((await events(pass.id)).map((event) => [event.actor_id, event.overridden])).toEqual([
      [staff.id, false],
      [owner.id, true],
    ])
  })
})

describe('/staff/password', () => {
  test('changes the password under the sign-up policy and ends the member’s other sessions', async () => {
    const { staff } = await counter()
    const otherDevice = await logIn(server, staff.email)
    const form = await server.get('/staff/password', staff.cookie)
    expect(form.status).toBe(200)
    expect(await form.text()).toContain('name="currentPassword"')

    const wrong = await server.post(
      '/staff/password',
      { currentPassword: 'Not.the.password1', password: 'Counter.2026', confirmPassword: 'Counter.2026' },
      staff.cookie,
    )
    expect(wrong.status).toBe(400)
    expect(await wrong.text()).toContain('The password is not correct')
    const weak = await server.post(
      '/staff/password',
      { currentPassword: STRONG_PASSWORD, password: 'weak', confirmPassword: 'weak' },
      staff.cookie,
    )
    expect(weak.status).toBe(400)
    expect((await server.get('/staff', otherDevice)).status).toBe(200)

    const changed = await server.post(
      '/staff/password',
      { currentPassword: STRONG_PASSWORD, password: 'Counter.2026', confirmPassword: 'Counter.2026' },
      staff.cookie,
    )
    expect(changed.status).toBe(302)
    expect(changed.headers.get('Location')).toBe('/staff')
    expect((await server.get('/staff', staff.cookie)).status).toBe(200)
    const ended = await server.get('/staff', otherDevice)
    expect(ended.status).toBe(302)
    expect(ended.headers.get('Location')).toMatch(/^\/login/)
    await logIn(server, staff.email, 'Counter.2026')
  })
})
