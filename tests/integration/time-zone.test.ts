import crypto from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { startJobs } from '#app/main/jobs.server.ts'
import { TIME_ZONE_REBUILD_QUEUE } from '#app/server/job-queue.server.ts'
import { stampPass } from '#app/services/cards/stamping.server.ts'
import { localDay } from '#app/utils/local-time.ts'
import { isTimeZoneKnownToDatabase } from '#models/user.server.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { postJson, sql, STRONG_PASSWORD, uniqueEmail } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * The business's time zone (issue 18, item 1; docs/product/insights-and-exports.md "Time zone"): the profile's select,
 * the browser's zone at sign-up, and the job that rebuilds pass_days in the new zone. The job queue runs in this file,
 * as in the server.
 */
const server = useTestServer()
let jobs: Awaited<ReturnType<typeof startJobs>>
beforeAll(async () => {
  jobs = await startJobs()
})
afterAll(async () => {
  await jobs.stop()
})
beforeEach(async () => {
  await sql('delete from rate_limit_counters')
})

const PROFILE = '/account/profile'
const MESSAGE = 'Choose a time zone from the list'

const saveTimeZone = (cookie: string, timeZone: string) =>
  server.post(PROFILE, { intent: 'time-zone', timeZone }, cookie)

async function storedTimeZone(userId: string) {
  const [row] = await sql<{ time_zone: string }>('select time_zone from users where id = :userId', { userId })
  return row!.time_zone
}

const rebuildJobs = (userId: string) =>
  sql<{ state: string }>('select state from pgboss.job where name = :name and singleton_key = :userId', {
    name: TIME_ZONE_REBUILD_QUEUE,
    userId,
  })

/** Until every rebuild job of the owner has completed (and at least one was queued). */
async function waitForRebuild(userId: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const states = (await rebuildJobs(userId)).map((job) => job.state)
    if (states.length && states.every((state) => state === 'completed')) return
    if (Date.now() > deadline) throw new Error(`rebuild not done in time: ${states.join(', ') || 'no job'}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The toast the redirect carries, read from its cookie. */
async function toastOf(response: Response, sessionCookie: string) {
  expect(response.status).toBe(302)
  expect(response.headers.get('Location')).toBe(PROFILE)
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('__toast='))
  expect(cookie, 'a toast cookie').toBeDefined()
  const page = await server.fetch(PROFILE, { headers: { Cookie: `${sessionCookie}; ${cookie!.split(';')[0]!}` } })
  return page.text()
}

describe('the profile setting', () => {
  test('shows every zone with the stored one selected, saves a new one and queues its rebuild', async () => {
    const owner = await signedInOwner(server)
    const before = await (await server.fetch(PROFILE, { headers: { Cookie: owner.cookie } })).text()
    expect(before).toContain('<select')
    expect(before).toContain('name="timeZone"')
    expect(before).toContain('<optgroup label="Pacific">')
    expect(before).toMatch(/<option value="UTC" selected="">UTC<\/option>/)
    expect(before).toContain('Monthly message quotas stay in UTC months.')

    const response = await saveTimeZone(owner.cookie, 'Pacific/Auckland')
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(PROFILE)
    expect(await storedTimeZone(owner.id)).toBe('Pacific/Auckland')
    const after = await (await server.fetch(PROFILE, { headers: { Cookie: owner.cookie } })).text()
    expect(after).toMatch(/<option value="Pacific\/Auckland" selected="">Auckland<\/option>/)
    await waitForRebuild(owner.id)
  })

  test('the toast names the zone; saving it again changes nothing and queues nothing', async () => {
    const owner = await signedInOwner(server)
    const saved = await toastOf(await saveTimeZone(owner.cookie, 'Pacific/Honolulu'), owner.cookie)
    expect(saved).toContain('Time zone saved: figures are being recounted in Pacific/Honolulu.')
    await waitForRebuild(owner.id)
    const [{ updated_at: updatedAt } = { updated_at: null }] = await sql<{ updated_at: Date }>(
      'select updated_at from users where id = :id',
      { id: owner.id },
    )

    const again = await toastOf(await saveTimeZone(owner.cookie, 'Pacific/Honolulu'), owner.cookie)
    expect(again).toContain('Your time zone stays Pacific/Honolulu.')
    expect(await rebuildJobs(owner.id)).toHaveLength(1)
    const [row] = await sql<{ updated_at: Date }>('select updated_at from users where id = :id', { id: owner.id })
    expect(row!.updated_at).toEqual(updatedAt)
  })

  test('a change while a rebuild runs queues another one after it', async () => {
    const owner = await signedInOwner(server)
    // A rebuild of this owner that is running (taken by a worker, not finished).
    const [running] = await sql<{ id: string }>(
      `insert into pgboss.job (name, data, state, singleton_key, policy, started_on)
       values (:name, jsonb_build_object('userId', :userId), 'active', :userId, 'short', now())
       returning id`,
      { name: TIME_ZONE_REBUILD_QUEUE, userId: owner.id },
    )
    try {
      expect((await saveTimeZone(owner.cookie, 'Pacific/Auckland')).status).toBe(302)
      const states = (await rebuildJobs(owner.id)).map((job) => job.state)
      expect(states).toHaveLength(2)
      expect(states).toContain('active')
    } finally {
      // That one only: the rebuild queued after it may be running by now, and must finish.
      await sql(`delete from pgboss.job where name = :name and id = :id`, {
        name: TIME_ZONE_REBUILD_QUEUE,
        id: running!.id,
      })
    }
    await waitForRebuild(owner.id)
  })

  test('changes while a rebuild waits add nothing: the waiting one reads the zone when it runs', async () => {
    const owner = await signedInOwner(server)
    // A waiting rebuild of this owner (held back an hour so that no worker takes it during the test).
    await sql(
      `insert into pgboss.job (name, data, state, singleton_key, policy, start_after)
       values (:name, jsonb_build_object('userId', :userId), 'created', :userId, 'short', now() + interval '1 hour')`,
      { name: TIME_ZONE_REBUILD_QUEUE, userId: owner.id },
    )
    try {
      expect((await saveTimeZone(owner.cookie, 'Pacific/Auckland')).status).toBe(302)
      expect((await saveTimeZone(owner.cookie, 'Pacific/Honolulu')).status).toBe(302)
      expect(await storedTimeZone(owner.id)).toBe('Pacific/Honolulu')
      expect(await rebuildJobs(owner.id)).toEqual([{ state: 'created' }])
    } finally {
      await sql('delete from pgboss.job where name = :name and singleton_key = :userId', {
        name: TIME_ZONE_REBUILD_QUEUE,
        userId: owner.id,
      })
    }
  })

  test('refuses what is not a zone with a message, 400, nothing changed', async () => {
    const owner = await signedInOwner(server)
    for (const timeZone of ['Mars/Olympus', '', 'x'.repeat(200), 'Pacific/Auckland\u0000', '../../etc/passwd']) {
      const response = await saveTimeZone(owner.cookie, timeZone)
      expect(response.status, JSON.stringify(timeZone)).toBe(400)
      const html = await response.text()
      expect(html).toContain(MESSAGE)
      // The select still shows the stored zone.
      expect(html).toMatch(/<option value="UTC" selected="">UTC<\/option>/)
    }
    const missing = await server.fetch(PROFILE, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: owner.cookie },
      body: new URLSearchParams({ intent: 'time-zone' }),
    })
    expect(missing.status).toBe(400)
    expect(await missing.text()).toContain(MESSAGE)
    expect(await storedTimeZone(owner.id)).toBe('UTC')
    expect(await rebuildJobs(owner.id)).toEqual([])
  })

  test('an alias is stored under its canonical name', async () => {
    const owner = await signedInOwner(server)
    expect((await saveTimeZone(owner.cookie, 'Etc/UTC')).status).toBe(302)
    expect(await storedTimeZone(owner.id)).toBe('UTC')
  })

  test('the database is asked whether it knows the zone', async () => {
    expect(await isTimeZoneKnownToDatabase('Pacific/Auckland')).toBe(true)
    expect(await isTimeZoneKnownToDatabase('UTC')).toBe(true)
    expect(await isTimeZoneKnownToDatabase('Mars/Olympus')).toBe(false)
    expect(await isTimeZoneKnownToDatabase("Pacific/Auckland' or '1'='1")).toBe(false)
  })

  test('the JSON user data carries the zone', async () => {
    const owner = await signedInOwner(server)
    await saveTimeZone(owner.cookie, 'Pacific/Honolulu')
    const response = await server.fetch('/api/account/user_data', { headers: { Cookie: owner.cookie } })
    expect(response.status).toBe(200)
    const body = (await response.json()) as { user_info: { time_zone: string } }
    expect(body.user_info.time_zone).toBe('Pacific/Honolulu')
  })
})

describe('sign-up', () => {
  const signUpPage = (email: string, timeZone?: string) => {
    const fields: Record<string, string> = { email, password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD }
    if (timeZone !== undefined) fields.timeZone = timeZone
    return server.fetch('/sign-up', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    })
  }
  const zoneOf = async (email: string) => {
    const [row] = await sql<{ time_zone: string }>('select time_zone from users where email = :email', { email })
    return row?.time_zone
  }

  test('the page form stores the browser zone, UTC without one or with garbage', async () => {
    const cases: [string | undefined, string][] = [
      ['Pacific/Honolulu', 'Pacific/Honolulu'],
      [undefined, 'UTC'],
      ['', 'UTC'],
      ['Mars/Olympus', 'UTC'],
      ['x'.repeat(200), 'UTC'],
      ['Etc/UTC', 'UTC'],
    ]
    for (const [timeZone, expected] of cases) {
      const email = uniqueEmail('tz-page')
      const response = await signUpPage(email, timeZone)
      expect(response.status, String(timeZone)).toBe(302)
      expect(response.headers.get('Location')).toContain('/verify-email')
      expect(await zoneOf(email), String(timeZone)).toBe(expected)
    }
  })

  test('the page carries the hidden field its script fills in', async () => {
    const html = await (await server.fetch('/sign-up')).text()
    expect(html).toMatch(/<input type="hidden" name="timeZone" value=""\/>/)
  })

  test('the JSON call takes an optional timeZone, UTC without one or with garbage', async () => {
    const cases: [unknown, string][] = [
      ['Pacific/Auckland', 'Pacific/Auckland'],
      [undefined, 'UTC'],
      ['Mars/Olympus', 'UTC'],
      [42, 'UTC'],
      [{ zone: 'Pacific/Auckland' }, 'UTC'],
    ]
    for (const [timeZone, expected] of cases) {
      const email = uniqueEmail('tz-api')
      const response = await postJson(server, '/api/auth/signup', {
        email,
        password: STRONG_PASSWORD,
        confirmPassword: STRONG_PASSWORD,
        ...(timeZone === undefined ? {} : { timeZone }),
      })
      expect(response.status, JSON.stringify(timeZone)).toBe(201)
      expect(await zoneOf(email), JSON.stringify(timeZone)).toBe(expected)
    }
  })
})

describe('the rebuild', () => {
  const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
  const shortCode = () => Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')

  async function createCard(ownerId: string) {
    const [card] = await sql<{ id: string }>(
      `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
       values (:ownerId, :slug, 'active', 'Coffee card', 'Corner Coffee', 5, 'A free coffee') returning id`,
      { ownerId, slug: `tz-${crypto.randomBytes(6).toString('hex')}` },
    )
    return card!.id
  }
  async function createPass(cardId: string) {
    const code = shortCode()
    const [pass] = await sql<{ id: string }>(
      'insert into passes (card_id, short_code) values (:cardId, :code) returning id',
      { cardId, code },
    )
    return { id: pass!.id, code }
  }
  /** An event at a fixed time; the trigger files it under the owner's zone of the moment. */
  const event = (passId: string, kind: 'stamp' | 'undo' | 'redeem', at: string, count = 1) =>
    sql(
      `insert into stamp_events (pass_id, card_id, kind, count, created_at)
       select id, card_id, :kind, :count, :at from passes where id = :passId`,
      { passId, kind, count, at },
    )
  type Day = { pass_id: string | null; day: string; visits: number; stamps: number; redemptions: number }
  const days = (cardId: string) =>
    sql<Day>(
      `select pass_id, to_char(day, 'YYYY-MM-DD') as day, visits, stamps, redemptions from pass_days
       where card_id = :cardId and (visits > 0 or stamps > 0 or redemptions > 0) order by pass_id nulls first, day`,
      { cardId },
    )
  const row = (pass_id: string | null, day: string, visits: number, stamps: number, redemptions = 0): Day => ({
    pass_id,
    day,
    visits,
    stamps,
    redemptions,
  })
  // As the query orders them: removed holders first, then by pass and day.
  const sortDays = (rows: Day[]) => {
    const key = (row: Day) => `${row.pass_id === null ? 0 : 1}${row.pass_id ?? ''}${row.day}`
    return [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
  }

  test('a change of zone moves every day, removed holders included, undone stamps left out', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const regular = await createPass(cardId)
    const removed = await createPass(cardId)
    const undone = await createPass(cardId)
    // 10:30Z is 23:30 on the 26th in Auckland (UTC+13), 11:30Z already 00:30 on the 27th; both the 26th in UTC.
    await event(regular.id, 'stamp', '2026-11-26T10:30:00Z', 2)
    await event(regular.id, 'stamp', '2026-11-26T11:30:00Z')
    await event(regular.id, 'redeem', '2026-11-27T12:00:00Z')
    await event(removed.id, 'stamp', '2026-11-25T11:15:00Z', 3)
    await event(undone.id, 'stamp', '2026-11-26T11:45:00Z')
    await event(undone.id, 'undo', '2026-11-26T11:46:00Z')
    await sql('delete from passes where id = :id', { id: removed.id })

    expect(await days(cardId)).toEqual(
      sortDays([
        row(null, '2026-11-25', 1, 3),
        row(regular.id, '2026-11-26', 2, 3),
        row(regular.id, '2026-11-27', 1, 0, 1),
      ]),
    )

    expect((await saveTimeZone(owner.cookie, 'Pacific/Auckland')).status).toBe(302)
    await waitForRebuild(owner.id)

    expect(await days(cardId)).toEqual(
      sortDays([
        row(null, '2026-11-26', 1, 3),
        row(regular.id, '2026-11-26', 1, 2),
        row(regular.id, '2026-11-27', 1, 1),
        row(regular.id, '2026-11-28', 1, 0, 1),
      ]),
    )
    // The undone stamp's pass has no rows left at all, not even emptied ones.
    expect(await sql('select 1 from pass_days where pass_id = :id', { id: undone.id })).toEqual([])

    // And back: Honolulu (UTC-10) files all of them a day earlier than Auckland.
    expect((await saveTimeZone(owner.cookie, 'Pacific/Honolulu')).status).toBe(302)
    await waitForRebuild(owner.id)
    expect(await days(cardId)).toEqual(
      sortDays([
        row(null, '2026-11-25', 1, 3),
        row(regular.id, '2026-11-26', 2, 3),
        row(regular.id, '2026-11-27', 1, 0, 1),
      ]),
    )
  })

  test('every card of the owner, past a chunk of 1,000 passes', async () => {
    const owner = await signedInOwner(server)
    const small = await createCard(owner.id)
    const large = await createCard(owner.id)
    const other = await signedInOwner(server)
    const othersCard = await createCard(other.id)
    const smallPass = await createPass(small)
    await event(smallPass.id, 'stamp', '2026-11-26T11:30:00Z')
    const othersPass = await createPass(othersCard)
    await event(othersPass.id, 'stamp', '2026-11-26T11:30:00Z')
    const codes = Array.from({ length: 1001 }, shortCode)
    await sql(
      `with made as (insert into passes (card_id, short_code) select :cardId, unnest(array[:codes]) returning id, card_id)
       insert into stamp_events (pass_id, card_id, kind, count, created_at)
       select id, card_id, 'stamp', 1, '2026-11-26T11:30:00Z' from made`,
      { cardId: large, codes },
    )
    const perDay = (cardId: string) =>
      sql<{ day: string; visits: number }>(
        `select to_char(day, 'YYYY-MM-DD') as day, sum(visits)::int as visits from pass_days where card_id = :cardId
         group by day order by day`,
        { cardId },
      )
    expect(await perDay(large)).toEqual([{ day: '2026-11-26', visits: 1001 }])

    expect((await saveTimeZone(owner.cookie, 'Pacific/Auckland')).status).toBe(302)
    await waitForRebuild(owner.id)
    expect(await perDay(large)).toEqual([{ day: '2026-11-27', visits: 1001 }])
    expect(await perDay(small)).toEqual([{ day: '2026-11-27', visits: 1 }])
    // Another owner's card stays in their zone.
    expect(await perDay(othersCard)).toEqual([{ day: '2026-11-26', visits: 1 }])
  }, 60_000)

  test('a stamp made while the zone changes lands on the new zone’s day', async () => {
    const owner = await signedInOwner(server)
    // Pago Pago is UTC-11 and Kiritimati UTC+14: at any instant their calendar days differ.
    await sql(`update users set time_zone = 'Pacific/Pago_Pago' where id = :id`, { id: owner.id })
    const cardId = await createCard(owner.id)
    const earlier = await createPass(cardId)
    const later = await createPass(cardId)
    await event(earlier.id, 'stamp', '2026-11-26T11:30:00Z')

    expect((await saveTimeZone(owner.cookie, 'Pacific/Kiritimati')).status).toBe(302)
    // At once, while the rebuild is queued or running.
    const before = new Date()
    const result = await stampPass({ ownerId: owner.id, cardId, code: later.code })
    const after = new Date()
    expect(result.ok).toBe(true)
    await waitForRebuild(owner.id)

    const laterDays = await sql<{ day: string; stamps: number }>(
      `select to_char(day, 'YYYY-MM-DD') as day, stamps from pass_days where pass_id = :id`,
      { id: later.id },
    )
    expect(laterDays).toHaveLength(1)
    expect([localDay(before, 'Pacific/Kiritimati'), localDay(after, 'Pacific/Kiritimati')]).toContain(laterDays[0]!.day)
    expect(laterDays[0]!.day).not.toBe(localDay(before, 'Pacific/Pago_Pago'))
    const earlierDays = await sql<{ day: string }>(
      `select to_char(day, 'YYYY-MM-DD') as day from pass_days where pass_id = :id`,
      { id: earlier.id },
    )
    // 11:30Z on the 26th is 01:30 on the 27th in Kiritimati (00:30 on the 26th in Pago Pago).
    expect(earlierDays).toEqual([{ day: '2026-11-27' }])
  })
})
