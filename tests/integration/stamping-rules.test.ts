import crypto from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import {
  perScanMessage,
  ruleRefusal,
  stampPass,
  undoLastStamp,
  type StampingResult,
} from '#app/services/cards/stamping.server.ts'
import { formatLocalDateTime } from '#app/utils/local-time.ts'
import { nextStampWhen, RULES_MESSAGES } from '#app/utils/stamping-rules.ts'
import { type LockedPass } from '#models/stamping.server.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * The stamping rules (issue 20; docs/product/staff-locations-rules.md): each rule at its boundary
 * through stampPass on the real database (embedded, or the server with TEST_DATABASE_URL), with and without the
 * owner's override, and the page that sets them, /account/{cardId}/rules, over HTTP.
 */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const newShortCode = () => Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')

type Rules = { maxPerScan?: number; pauseMinutes?: number; dailyCap?: number | null; timeZone?: string }

/** An owner (in `timeZone`) with a card of 20 stamps under these rules, and one pass. */
async function cardWithRules({ maxPerScan = 20, pauseMinutes = 0, dailyCap = null, timeZone = 'UTC' }: Rules = {}) {
  const owner = await createOwner()
  await sql(`update users set time_zone = :timeZone where id = :id`, { timeZone, id: owner.id })
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward, max_stamps_per_scan,
                        stamp_pause_minutes, daily_stamp_cap)
     values (:ownerId, :slug, 'active', 'Coffee card', 'Corner Coffee', 20, 'A free coffee', :maxPerScan,
             :pauseMinutes, :dailyCap) returning id`,
    {
      ownerId: owner.id,
      slug: `rules-${crypto.randomBytes(6).toString('hex')}`,
      maxPerScan,
      pauseMinutes,
      dailyCap,
    },
  )
  const shortCode = newShortCode()
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) values (:cardId, :shortCode) returning id`,
    { cardId: card!.id, shortCode },
  )
  const stamp = (count = 1, override = false) =>
    stampPass({ ownerId: owner.id, cardId: card!.id, code: shortCode, count, override })
  return { owner, ownerId: owner.id, cardId: card!.id, passId: pass!.id, shortCode, stamp, timeZone }
}

function expectOk(result: StampingResult) {
  if (!result.ok) throw new Error(`refused: ${result.message}`)
  return result.pass
}

const stampEvents = (passId: string) =>
  sql<{ kind: string; count: number; overridden: boolean }>(
    `select kind, count, overridden from stamp_events where pass_id = :passId order by id`,
    { passId },
  )

/** Moves the pass's stamps (its events, and the time the pause counts from) `seconds` into the past. */
async function ageStamps(passId: string, seconds: number) {
  await sql(
    `update stamp_events set created_at = created_at - make_interval(secs => :seconds) where pass_id = :passId;
     update passes set last_stamped_at = last_stamped_at - make_interval(secs => :seconds) where id = :passId`,
    { passId, seconds },
  )
}

describe('most stamps in one scan', () => {
  test('up to the limit stamps; one more is refused with the limit, unless the owner overrides', async () => {
    const { passId, stamp } = await cardWithRules({ maxPerScan: 3 })
    expect(expectOk(await stamp(3)).stamps).toBe(3)
    expect(await stamp(4)).toEqual({
      ok: false,
      status: 409,
      field: 'count',
      message: 'This card allows at most 3 stamps per scan.',
      rule: 'per_scan',
      rules: ['per_scan'],
      nextStampAt: null,
      // The card as it stands, for the page to show (issue 30, item 4).
      pass: expect.objectContaining({ passId, stamps: 3 }),
    })
    expect(perScanMessage(1)).toBe('This card allows 1 stamp per scan.')
    expect(expectOk(await stamp(4, true)).stamps).toBe(7)
    // The override is recorded only on the stamp a rule would have refused.
    expect(expectOk(await stamp(2, true)).stamps).toBe(9)
    expect(await stampEvents(passId)).toEqual([
      { kind: 'stamp', count: 3, overridden: false },
      { kind: 'stamp', count: 4, overridden: true },
      { kind: 'stamp', count: 2, overridden: false },
    ])
  })
})

describe('the pause between stamps', () => {
  test('refused until the pause ends, saying when; allowed once it has', async () => {
    const { passId, stamp, timeZone } = await cardWithRules({ pauseMinutes: 120, timeZone: 'Europe/Berlin' })
    expectOk(await stamp())
    const [{ last_stamped_at: last } = { last_stamped_at: new Date(0) }] = await sql<{ last_stamped_at: Date }>(
      `select last_stamped_at from passes where id = :passId`,
      { passId },
    )
    const refused = await stamp()
    const end = new Date(new Date(last).getTime() + 120 * 60_000)
    expect(refused).toMatchObject({ ok: false, status: 409, field: 'code', rule: 'pause', nextStampAt: end })
    if (refused.ok) return
    // The time alone, or with the date when the pause ends after the business's midnight.
    expect(refused.message).toBe(
      `This card was stamped recently: the next stamp is possible at ${nextStampWhen(end, timeZone)}.`,
    )
    expect(refused.message).toMatch(/^This card was stamped recently: the next stamp is possible at /)

    // 5 seconds before the end: still refused; just after it: allowed.
    await ageStamps(passId, 120 * 60 - 5)
    expect(await stamp()).toMatchObject({ ok: false, rule: 'pause' })
    await ageStamps(passId, 6)
    expect(expectOk(await stamp()).stamps).toBe(2)
    expect((await stampEvents(passId)).every((event) => !event.overridden)).toBe(true)
  })

  test('exactly at the end of the pause a stamp is allowed; a millisecond before, refused', () => {
    const now = new Date('2026-11-27T12:00:00.000Z')
    const pass = {
      stamps: 0,
      stamps_required: 20,
      max_stamps_per_scan: 20,
      pause_until: now,
      daily_stamp_cap: null,
      stamps_today: null,
      next_day_at: null,
      time_zone: 'UTC',
      now,
    } as unknown as LockedPass
    expect(ruleRefusal(pass, 1)).toBeNull()
    expect(ruleRefusal({ ...pass, pause_until: new Date(now.getTime() + 1) }, 1)).toMatchObject({ rule: 'pause' })
  })

  test('the owner may override; the override is recorded', async () => {
    const { passId, stamp } = await cardWithRules({ pauseMinutes: 60 })
    expectOk(await stamp())
    expect(await stamp()).toMatchObject({ ok: false, rule: 'pause' })
    expect(expectOk(await stamp(1, true)).stamps).toBe(2)
    expect((await stampEvents(passId)).map((event) => event.overridden)).toEqual([false, true])
  })

  test('an undo gives the pause back to the stamp before it', async () => {
    const { ownerId, cardId, passId, stamp } = await cardWithRules({ pauseMinutes: 120 })
    expectOk(await stamp())
    // That stamp was 3 hours ago; a second one (overriding nothing: the pause is over) is then undone.
    await ageStamps(passId, 3 * 3600)
    expectOk(await stamp())
    expect(await stamp()).toMatchObject({ ok: false, rule: 'pause' })
    expectOk(await undoLastStamp({ ownerId, cardId, passId }))
    // The pause counts from the first stamp again: over, so the next stamp goes.
    expect(expectOk(await stamp()).stamps).toBe(2)

    // With the first stamp 1 hour ago, the undo leaves its pause: 1 more hour.
    const recent = await cardWithRules({ pauseMinutes: 120 })
    expectOk(await recent.stamp())
    await ageStamps(recent.passId, 3600)
    expectOk(await recent.stamp(1, true))
    expectOk(await undoLastStamp({ ownerId: recent.ownerId, cardId: recent.cardId, passId: recent.passId }))
    const refused = await recent.stamp()
    expect(refused).toMatchObject({ ok: false, rule: 'pause' })
    if (refused.ok) return
    const left = refused.nextStampAt!.getTime() - Date.now()
    expect(left).toBeGreaterThan(59 * 60_000)
    expect(left).toBeLessThanOrEqual(60 * 60_000)
  })
})

describe('the daily cap', () => {
  // UTC+14: the owner's day and the UTC day never line up.
  const timeZone = 'Pacific/Kiritimati'

  /** Local midnight today in the owner's zone (as the database computes it). */
  async function localMidnight() {
    const [row] = await sql<{ midnight: Date }>(
      `select ((now() at time zone :timeZone)::date)::timestamp at time zone :timeZone as midnight`,
      { timeZone },
    )
    return new Date(row!.midnight)
  }

  /** A stamp event of `count` at `at` (its pass_days row is the insights trigger's, in the owner's zone). */
  async function stampAt(setup: Awaited<ReturnType<typeof cardWithRules>>, at: Date, count: number) {
    await sql(
      `insert into stamp_events (pass_id, card_id, actor_id, kind, count, created_at)
       values (:passId, :cardId, :ownerId, 'stamp', :count, :at)`,
      { passId: setup.passId, cardId: setup.cardId, ownerId: setup.ownerId, count, at },
    )
  }

  test('counts the stamps of the owner’s local day; the next is possible at local midnight', async () => {
    const setup = await cardWithRules({ dailyCap: 3, timeZone })
    const midnight = await localMidnight()
    // Yesterday's stamps, a minute before local midnight, do not count.
    await stampAt(setup, new Date(midnight.getTime() - 60_000), 3)
    expectOk(await setup.stamp(2))
    const tomorrow = new Date(midnight.getTime() + 24 * 3600_000)
    expect(await setup.stamp(2)).toEqual({
      ok: false,
      status: 409,
      field: 'count',
      message: `Daily limit of 3 stamps a day: only 1 more today, more from ${formatLocalDateTime(tomorrow, timeZone)}.`,
      rule: 'daily_cap',
      rules: ['daily_cap'],
      nextStampAt: null,
      pass: expect.objectContaining({ stamps: 2 }),
    })
    expectOk(await setup.stamp(1))
    const full = await setup.stamp(1)
    expect(full).toEqual({
      ok: false,
      status: 409,
      field: 'code',
      message: `Daily limit reached (3 stamps a day): the next stamp is possible at ${formatLocalDateTime(tomorrow, timeZone)}.`,
      rule: 'daily_cap',
      rules: ['daily_cap'],
      nextStampAt: tomorrow,
      pass: expect.objectContaining({ stamps: 3 }),
    })
    // Tomorrow, in the owner's zone, the count starts again: today's stamps move to yesterday.
    await sql(
      `update pass_days set day = day - 7 where pass_id = :passId and day = (now() at time zone :timeZone)::date`,
      { passId: setup.passId, timeZone },
    )
    expect(expectOk(await setup.stamp(3)).stamps).toBe(6)
  })

  test('an undo gives its stamps back to the day; the owner may override the cap', async () => {
    const setup = await cardWithRules({ dailyCap: 2, timeZone })
    expectOk(await setup.stamp(2))
    expect(await setup.stamp()).toMatchObject({ ok: false, rule: 'daily_cap' })
    expectOk(await undoLastStamp({ ownerId: setup.ownerId, cardId: setup.cardId, passId: setup.passId }))
    expect(expectOk(await setup.stamp(2)).stamps).toBe(2)
    expect(expectOk(await setup.stamp(1, true)).stamps).toBe(3)
    expect((await stampEvents(setup.passId)).map((event) => [event.kind, event.overridden])).toEqual([
      ['stamp', false],
      ['undo', false],
      ['stamp', false],
      ['stamp', true],
    ])
  })

  // The embedded database serves one connection at a time: a second one cannot hold the lock meanwhile.
  test.skipIf(!usingServer())('a stamp that waited for the pass’s lock counts the stamp it waited for', async () => {
    const setup = await cardWithRules({ dailyCap: 1, timeZone })
    const sequelize = getSequelize()
    const other = await sequelize.transaction()
    let waiting: Promise<StampingResult> | undefined
    try {
      // Another stamp holds the pass: its event (and its pass_days row) commit while this one waits for the lock.
      await sequelize.query(`select id from passes where id = :passId for update`, {
        replacements: { passId: setup.passId },
        transaction: other,
      })
      await sequelize.query(
        `insert into stamp_events (pass_id, card_id, actor_id, kind, count) values (:passId, :cardId, :ownerId, 'stamp', 1);
         update passes set stamps = stamps + 1, last_stamped_at = now() where id = :passId`,
        { replacements: { passId: setup.passId, cardId: setup.cardId, ownerId: setup.ownerId }, transaction: other },
      )
      waiting = setup.stamp()
      await new Promise((resolve) => setTimeout(resolve, 300))
      await other.commit()
    } catch (error) {
      await other.rollback()
      throw error
    }
    expect(await waiting).toMatchObject({ ok: false, rule: 'daily_cap', field: 'code' })
    const [pass] = await sql<{ stamps: number }>(`select stamps from passes where id = :passId`, {
      passId: setup.passId,
    })
    expect(pass!.stamps).toBe(1)
  })
})

describe('several rules refusing one scan', () => {
  const now = new Date('2026-11-27T12:00:00.000Z')
  const inMinutes = (minutes: number) => new Date(now.getTime() + minutes * 60_000)
  const base = {
    stamps: 0,
    stamps_required: 20,
    max_stamps_per_scan: 20,
    pause_until: null,
    daily_stamp_cap: null,
    stamps_today: null,
    next_day_at: null,
    time_zone: 'UTC',
    now,
  } as unknown as LockedPass

  test('every refusing rule is named, time-based first; the next stamp is when the last of them allows it', () => {
    const paused = { ...base, pause_until: inMinutes(30) }
    // The pause and the per-scan limit: both sentences, each as it reads alone.
    expect(ruleRefusal({ ...paused, max_stamps_per_scan: 3 }, 5)).toEqual({
      ok: false,
      status: 409,
      field: 'code',
      message: `This card was stamped recently: the next stamp is possible at ${nextStampWhen(inMinutes(30), 'UTC', now)}. ${perScanMessage(3)}`,
      rule: 'pause',
      rules: ['pause', 'per_scan'],
      nextStampAt: inMinutes(30),
    })
    // At the per-scan limit only the pause refuses.
    expect(ruleRefusal({ ...paused, max_stamps_per_scan: 3 }, 3)).toMatchObject({ rules: ['pause'] })
    // The pause and a reached daily cap: the later of the two times, whichever it is.
    const capped = { ...paused, daily_stamp_cap: 2, stamps_today: 2 }
    const dayLater = ruleRefusal({ ...capped, next_day_at: inMinutes(90) }, 1)
    expect(dayLater).toMatchObject({ rule: 'pause', rules: ['pause', 'daily_cap'], nextStampAt: inMinutes(90) })
    // One sentence, one time: the one that applies (issue 30, item 4).
    expect(dayLater?.message).toBe(
      `This card was stamped recently and it has reached its daily limit (2 stamps a day): the next stamp is possible at ${nextStampWhen(inMinutes(90), 'UTC', now)}.`,
    )
    const pauseLater = ruleRefusal({ ...capped, pause_until: inMinutes(120), next_day_at: inMinutes(90) }, 1)
    expect(pauseLater).toMatchObject({ rules: ['pause', 'daily_cap'], nextStampAt: inMinutes(120) })
    // A daily cap with stamps left and the per-scan limit: fewer stamps go now.
    const fewer = ruleRefusal(
      { ...base, max_stamps_per_scan: 3, daily_stamp_cap: 6, stamps_today: 2, next_day_at: inMinutes(90) },
      5,
    )
    expect(fewer).toMatchObject({ field: 'count', rule: 'daily_cap', rules: ['daily_cap', 'per_scan'] })
    expect(fewer?.nextStampAt).toBeNull()
    expect(fewer?.message).toBe(
      `Daily limit of 6 stamps a day: only 4 more today, more from ${nextStampWhen(inMinutes(90), 'UTC', now)}. ${perScanMessage(3)}`,
    )
  })

  test('inside the pause, more stamps than a scan allows: one answer names both; the owner overrides both', async () => {
    const { passId, stamp } = await cardWithRules({ maxPerScan: 3, pauseMinutes: 60 })
    expectOk(await stamp())
    const refused = await stamp(5)
    expect(refused).toMatchObject({ ok: false, status: 409, rule: 'pause', rules: ['pause', 'per_scan'] })
    if (refused.ok) return
    expect(refused.message).toMatch(/^This card was stamped recently: the next stamp is possible at .+\. /)
    expect(refused.message).toContain(perScanMessage(3))
    // Fewer stamps do not get past the pause: it was in the first answer.
    expect(await stamp(3)).toMatchObject({ ok: false, rule: 'pause', rules: ['pause'] })
    expect(expectOk(await stamp(5, true)).stamps).toBe(6)
    expect(await stampEvents(passId)).toEqual([
      { kind: 'stamp', count: 1, overridden: false },
      { kind: 'stamp', count: 5, overridden: true },
    ])
  })
})

describe('/account/{cardId}/rules', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => {
    await server.close()
  })

  async function signedIn() {
    const setup = await cardWithRules()
    return { ...setup, cookie: await logIn(server, setup.owner.email, setup.owner.password) }
  }
  const get = (pathname: string, cookie: string) => server.fetch(pathname, { headers: { Cookie: cookie } })
  const post = (pathname: string, cookie: string, body: string | Record<string, string>, type?: string) =>
    server.fetch(pathname, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': type ?? 'application/x-www-form-urlencoded', Cookie: cookie },
      body: typeof body === 'string' ? body : new URLSearchParams(body),
    })
  const storedRules = async (cardId: string) =>
    (
      await sql<{ max_stamps_per_scan: number; stamp_pause_minutes: number; daily_stamp_cap: number | null }>(
        `select max_stamps_per_scan, stamp_pause_minutes, daily_stamp_cap from cards where id = :cardId`,
        { cardId },
      )
    )[0]!
  const form = (fields: Record<string, string> = {}) => ({
    maxPerScan: '20',
    pause: '0',
    customAmount: '',
    customUnit: 'hours',
    dailyCap: '',
    ...fields,
  })

  test('shows the rules (today’s defaults), saves them and shows them back; the card page links to it', async () => {
    const { cardId, cookie } = await signedIn()
    const rules = `/account/${cardId}/rules`
    const page = await get(rules, cookie)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('Most stamps in one scan')
    expect(html).toMatch(/<option value="20" selected="">20 stamps<\/option>/)
    expect(html).toMatch(/<option value="0" selected="">No pause<\/option>/)
    expect(await (await get(`/account/${cardId}`, cookie)).text()).toContain(`href="${rules}"`)

    const saved = await post(rules, cookie, form({ maxPerScan: '3', pause: '120', dailyCap: '5' }))
    expect(saved.status).toBe(302)
    expect(saved.headers.get('location')).toBe(rules)
    expect(await storedRules(cardId)).toEqual({ max_stamps_per_scan: 3, stamp_pause_minutes: 120, daily_stamp_cap: 5 })
    const toast = saved.headers
      .getSetCookie()
      .find((line) => line.startsWith('__toast='))!
      .split(';')[0]
    const after = await (await get(rules, `${cookie}; ${toast}`)).text()
    expect(after).toContain('Stamping rules saved.')
    expect(after).toMatch(/<option value="120" selected="">2 hours<\/option>/)
    expect(after).toMatch(/value="5"/)

    // A custom pause in minutes, and no daily cap.
    expect(
      (await post(rules, cookie, form({ pause: 'custom', customAmount: '90', customUnit: 'minutes' }))).status,
    ).toBe(302)
    expect(await storedRules(cardId)).toEqual({
      max_stamps_per_scan: 20,
      stamp_pause_minutes: 90,
      daily_stamp_cap: null,
    })
    const custom = await (await get(rules, cookie)).text()
    expect(custom).toMatch(/<option value="custom" selected="">Custom…<\/option>/)
    expect(custom).toMatch(/<option value="minutes" selected="">Minutes<\/option>/)
    expect((await post(rules, cookie, form({ pause: 'custom', customAmount: '7', customUnit: 'days' }))).status).toBe(
      302,
    )
    expect((await storedRules(cardId)).stamp_pause_minutes).toBe(7 * 24 * 60)
  })

  test('bad input is 400 with the field’s message, and changes nothing', async () => {
    const { cardId, cookie } = await signedIn()
    const rules = `/account/${cardId}/rules`
    const cases: [Record<string, string>, string][] = [
      [{ maxPerScan: '0' }, RULES_MESSAGES.maxPerScan],
      [{ maxPerScan: '21' }, RULES_MESSAGES.maxPerScan],
      [{ maxPerScan: 'many' }, RULES_MESSAGES.maxPerScan],
      [{ maxPerScan: '2.5' }, RULES_MESSAGES.maxPerScan],
      [{ pause: '45' }, RULES_MESSAGES.pause],
      [{ pause: 'custom' }, RULES_MESSAGES.customAmount],
      [{ pause: 'custom', customAmount: '0' }, RULES_MESSAGES.customAmount],
      [{ pause: 'custom', customAmount: '8', customUnit: 'days' }, RULES_MESSAGES.customTooLong],
      [{ pause: 'custom', customAmount: '10081', customUnit: 'minutes' }, RULES_MESSAGES.customTooLong],
      [{ pause: 'custom', customAmount: '3', customUnit: 'weeks' }, RULES_MESSAGES.customUnit],
      [{ dailyCap: '0' }, RULES_MESSAGES.dailyCap],
      [{ dailyCap: '101' }, RULES_MESSAGES.dailyCap],
      [{ dailyCap: 'lots' }, RULES_MESSAGES.dailyCap],
    ]
    for (const [fields, message] of cases) {
      const answer = await post(rules, cookie, form(fields))
      expect(answer.status, JSON.stringify(fields)).toBe(400)
      expect(await answer.text(), JSON.stringify(fields)).toContain(message)
    }
    // No form at all, or a huge number: still 400, never 500.
    expect((await post(rules, cookie, '{"maxPerScan":3}', 'application/json')).status).toBe(400)
    expect((await post(rules, cookie, form({ dailyCap: '9'.repeat(400) }))).status).toBe(400)
    expect(await storedRules(cardId)).toEqual({
      max_stamps_per_scan: 20,
      stamp_pause_minutes: 0,
      daily_stamp_cap: null,
    })
  })

  test('another owner’s card, or an id that is not one, is 404 to the page and its form', async () => {
    const { cardId } = await signedIn()
    const stranger = await signedIn()
    for (const id of [cardId, 'not-a-card', crypto.randomUUID()]) {
      expect((await get(`/account/${id}/rules`, stranger.cookie)).status).toBe(404)
      expect((await post(`/account/${id}/rules`, stranger.cookie, form({ maxPerScan: '1' }))).status).toBe(404)
    }
    expect((await storedRules(cardId)).max_stamps_per_scan).toBe(20)
    // A guest is sent to sign in.
    const guest = await server.fetch(`/account/${cardId}/rules`, { redirect: 'manual' })
    expect(guest.status).toBe(302)
    expect(guest.headers.get('location')).toMatch(/^\/login/)
  })
})
