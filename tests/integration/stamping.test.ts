import crypto from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  CARD_FULL,
  getPassStampState,
  NO_CARD_WITH_THIS_CODE,
  redeemReward,
  REWARD_NOT_EARNED,
  stampPass,
  undoLastStamp,
  UNDO_EXPIRED,
  type StampingResult,
} from '#app/services/cards/stamping.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * Stamping (issue #5, item 5): the model's operations on the real database (embedded, or the PostgreSQL server
 * with TEST_DATABASE_URL), then /account/{cardId}/scan over HTTP. Passes are made in SQL: the holder side that
 * creates them is another module's.
 */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const newShortCode = () => Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')

async function createCard(ownerId: string, stampsRequired = 5) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
     values (:ownerId, :slug, 'active', 'Coffee card', 'Corner Coffee', :stampsRequired, 'A free coffee') returning id`,
    { ownerId, slug: `card-${crypto.randomBytes(6).toString('hex')}`, stampsRequired },
  )
  return card!.id
}

async function createPass(cardId: string, stamps = 0) {
  const shortCode = newShortCode()
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code, stamps) values (:cardId, :shortCode, :stamps) returning id`,
    {
      cardId,
      shortCode,
      stamps,
    },
  )
  return { id: pass!.id, shortCode }
}

async function storedPass(passId: string) {
  const [row] = await sql<{ stamps: number; rewards_redeemed: number; last_stamped_at: Date | null }>(
    `select stamps, rewards_redeemed, last_stamped_at from passes where id = :passId`,
    { passId },
  )
  return row!
}

const events = (passId: string) =>
  sql<{ kind: string; count: number; actor_id: string; card_id: string; created_at: Date }>(
    `select kind, count, actor_id, card_id, created_at from stamp_events where pass_id = :passId order by id`,
    { passId },
  )

/** An owner with a card (5 stamps needed) and one pass on it. */
async function ownerWithPass(stampsRequired = 5, stamps = 0) {
  const owner = await createOwner()
  const cardId = await createCard(owner.id, stampsRequired)
  const pass = await createPass(cardId, stamps)
  return { owner, ownerId: owner.id, cardId, pass }
}

function expectOk(result: StampingResult) {
  if (!result.ok) throw new Error(`refused: ${result.message}`)
  return result.pass
}

describe('stampPass', () => {
  test('gives one stamp, records it with the owner and the time, and opens the undo window', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass()
    const before = Date.now()
    const state = expectOk(await stampPass({ ownerId, cardId, code: pass.shortCode }))
    expect(state).toMatchObject({
      passId: pass.id,
      shortCode: pass.shortCode,
      stamps: 1,
      stampsRequired: 5,
      rewardsRedeemed: 0,
      rewardEarned: false,
    })
    expect(state.undoUntil!.getTime()).toBeGreaterThan(before + 110_000)
    expect((await storedPass(pass.id)).last_stamped_at).not.toBeNull()
    const [event] = await events(pass.id)
    expect(event).toMatchObject({ kind: 'stamp', count: 1, actor_id: ownerId, card_id: cardId })
    expect(Math.abs(new Date(event!.created_at).getTime() - Date.now())).toBeLessThan(60_000)
  })

  test('gives several stamps at once, and the reward is earned when the card is full', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass()
    expect(expectOk(await stampPass({ ownerId, cardId, code: pass.shortCode, count: 3 })).stamps).toBe(3)
    const full = expectOk(await stampPass({ ownerId, cardId, code: pass.shortCode, count: 2 }))
    expect(full).toMatchObject({ stamps: 5, rewardEarned: true })
    expect((await events(pass.id)).map((event) => [event.kind, event.count])).toEqual([
      ['stamp', 3],
      ['stamp', 2],
    ])
  })

  test('a count beyond the stamps left is refused with how many are left, and changes nothing', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass(5, 2)
    expect(await stampPass({ ownerId, cardId, code: pass.shortCode, count: 4 })).toEqual({
      ok: false,
      status: 409,
      field: 'count',
      message: 'Only 3 stamps left on this card',
    })
    await sql(`update passes set stamps = 4 where id = :id`, { id: pass.id })
    expect(await stampPass({ ownerId, cardId, code: pass.shortCode, count: 2 })).toMatchObject({
      message: 'Only 1 stamp left on this card',
    })
    expect((await storedPass(pass.id)).stamps).toBe(4)
    expect(await events(pass.id)).toEqual([])
  })

  test('a full card is refused until the reward is redeemed', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass(5, 5)
    expect(await stampPass({ ownerId, cardId, code: pass.shortCode })).toEqual({
      ok: false,
      status: 409,
      field: 'code',
      message: CARD_FULL,
    })
  })

  test('a count outside 1–20 or not whole is refused', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass()
    for (const count of [0, -1, 21, 1.5, Number.NaN]) {
      expect(await stampPass({ ownerId, cardId, code: pass.shortCode, count })).toMatchObject({
        ok: false,
        status: 400,
        field: 'count',
      })
    }
    expect((await storedPass(pass.id)).stamps).toBe(0)
  })

  test('an unknown code, a code of another owner’s card and of another of one’s cards get the same answer', async () => {
    const { ownerId, cardId } = await ownerWithPass()
    const other = await ownerWithPass()
    const ownOtherCard = await createPass(await createCard(ownerId))
    const refusal = { ok: false, status: 404, field: 'code', message: NO_CARD_WITH_THIS_CODE }
    for (const code of [
      newShortCode(),
      other.pass.shortCode,
      ownOtherCard.shortCode,
      'nope',
      '%',
      `x`.repeat(300),
      `/p/${other.pass.id}`,
    ]) {
      expect(await stampPass({ ownerId, cardId, code })).toEqual(refusal)
    }
    // Nor can the other owner's card be named directly.
    expect(await stampPass({ ownerId, cardId: other.cardId, code: other.pass.shortCode })).toEqual(refusal)
    expect(await stampPass({ ownerId, cardId: 'not-a-uuid', code: other.pass.shortCode })).toEqual(refusal)
    expect((await storedPass(other.pass.id)).stamps).toBe(0)
    expect((await storedPass(ownOtherCard.id)).stamps).toBe(0)
  })

  test('the code is read in any case, with spaces or dashes, or as the pass’s address', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass(20)
    const lower = pass.shortCode.toLowerCase()
    for (const code of [
      lower,
      ` ${lower.slice(0, 4)}-${lower.slice(4)} `,
      `${pass.shortCode.slice(0, 4)} ${pass.shortCode.slice(4)}`,
    ]) {
      expectOk(await stampPass({ ownerId, cardId, code }))
    }
    expect(expectOk(await stampPass({ ownerId, cardId, code: `http://localhost:3000/p/${pass.id}` })).stamps).toBe(4)
  })

  test('20 parallel stamps on one pass never exceed the limit nor lose a stamp', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass(15)
    const results = await Promise.all(
      Array.from({ length: 20 }, () => stampPass({ ownerId, cardId, code: pass.shortCode })),
    )
    expect(results.filter((result) => result.ok)).toHaveLength(15)
    expect(results.filter((result) => !result.ok).map((result) => !result.ok && result.message)).toEqual(
      Array(5).fill(CARD_FULL),
    )
    expect((await storedPass(pass.id)).stamps).toBe(15)
    expect(await events(pass.id)).toHaveLength(15)

    const roomy = await ownerWithPass(20)
    const all = await Promise.all(
      Array.from({ length: 20 }, () =>
        stampPass({ ownerId: roomy.ownerId, cardId: roomy.cardId, code: roomy.pass.shortCode }),
      ),
    )
    expect(all.every((result) => result.ok)).toBe(true)
    expect((await storedPass(roomy.pass.id)).stamps).toBe(20)
    // Each answer saw its own step: no two requests read the same count.
    expect(new Set(all.map((result) => result.ok && result.pass.stamps)).size).toBe(20)
  })
})

describe('undoLastStamp', () => {
  test('takes back the last stamp within 2 minutes, once, and records the undo', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass()
    expectOk(await stampPass({ ownerId, cardId, code: pass.shortCode }))
    expectOk(await stampPass({ ownerId, cardId, code: pass.shortCode, count: 3 }))
    const undone = expectOk(await undoLastStamp({ ownerId, cardId, passId: pass.id }))
    expect(undone).toMatchObject({ stamps: 1, undoUntil: null })
    expect(await undoLastStamp({ ownerId, cardId, passId: pass.id })).toEqual({
      ok: false,
      status: 409,
      field: 'form',
      message: UNDO_EXPIRED,
    })
    expect((await events(pass.id)).map((event) => [event.kind, event.count, event.actor_id])).toEqual([
      ['stamp', 1, ownerId],
      ['stamp', 3, ownerId],
      ['undo', 3, ownerId],
    ])
    expect(await getPassStampState({ ownerId, cardId, passId: pass.id })).toMatchObject({ stamps: 1, undoUntil: null })
  })

  test('is refused after 2 minutes, and with nothing to undo', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass()
    expect(await undoLastStamp({ ownerId, cardId, passId: pass.id })).toMatchObject({
      ok: false,
      message: UNDO_EXPIRED,
    })
    expectOk(await stampPass({ ownerId, cardId, code: pass.shortCode }))
    expect((await getPassStampState({ ownerId, cardId, passId: pass.id }))!.undoUntil).toBeInstanceOf(Date)
    await sql(`update stamp_events set created_at = now() - interval '121 seconds' where pass_id = :passId`, {
      passId: pass.id,
    })
    expect(await getPassStampState({ ownerId, cardId, passId: pass.id })).toMatchObject({ stamps: 1, undoUntil: null })
    expect(await undoLastStamp({ ownerId, cardId, passId: pass.id })).toEqual({
      ok: false,
      status: 409,
      field: 'form',
      message: UNDO_EXPIRED,
    })
    expect((await storedPass(pass.id)).stamps).toBe(1)
  })

  test('never takes the stamps below 0, and is refused after a redeem', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass()
    expectOk(await stampPass({ ownerId, cardId, code: pass.shortCode, count: 2 }))
    await sql(`update passes set stamps = 1 where id = :id`, { id: pass.id })
    expect(expectOk(await undoLastStamp({ ownerId, cardId, passId: pass.id })).stamps).toBe(0)

    const full = await ownerWithPass(2)
    expectOk(await stampPass({ ownerId: full.ownerId, cardId: full.cardId, code: full.pass.shortCode, count: 2 }))
    expectOk(await redeemReward({ ownerId: full.ownerId, cardId: full.cardId, passId: full.pass.id }))
    expect(await undoLastStamp({ ownerId: full.ownerId, cardId: full.cardId, passId: full.pass.id })).toMatchObject({
      ok: false,
      message: UNDO_EXPIRED,
    })
  })

  test('another owner’s pass is not found', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass()
    expectOk(await stampPass({ ownerId, cardId, code: pass.shortCode }))
    const stranger = await createOwner()
    expect(await undoLastStamp({ ownerId: stranger.id, cardId, passId: pass.id })).toMatchObject({
      ok: false,
      status: 404,
    })
    expect(await redeemReward({ ownerId: stranger.id, cardId, passId: pass.id })).toMatchObject({
      ok: false,
      status: 404,
    })
    expect(await getPassStampState({ ownerId: stranger.id, cardId, passId: pass.id })).toBeNull()
    expect((await storedPass(pass.id)).stamps).toBe(1)
  })
})

describe('redeemReward', () => {
  test('starts a new round and counts the reward; a second redeem is refused until earned again', async () => {
    const { ownerId, cardId, pass } = await ownerWithPass(3)
    expect(await redeemReward({ ownerId, cardId, passId: pass.id })).toEqual({
      ok: false,
      status: 409,
      field: 'form',
      message: REWARD_NOT_EARNED,
    })
    expectOk(await stampPass({ ownerId, cardId, code: pass.shortCode, count: 3 }))
    const redeemed = expectOk(await redeemReward({ ownerId, cardId, passId: pass.id }))
    expect(redeemed).toMatchObject({ stamps: 0, rewardsRedeemed: 1, rewardEarned: false, undoUntil: null })
    expect(await redeemReward({ ownerId, cardId, passId: pass.id })).toMatchObject({
      ok: false,
      message: REWARD_NOT_EARNED,
    })
    expect(expectOk(await stampPass({ ownerId, cardId, code: pass.shortCode })).stamps).toBe(1)
    await sql(`update passes set stamps = 3 where id = :id`, { id: pass.id })
    expect(expectOk(await redeemReward({ ownerId, cardId, passId: pass.id })).rewardsRedeemed).toBe(2)
    expect((await events(pass.id)).map((event) => event.kind)).toEqual(['stamp', 'redeem', 'stamp', 'redeem'])
  })
})

describe('/account/{cardId}/scan', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => {
    await server.close()
  })

  async function signedIn(stampsRequired = 3) {
    const setup = await ownerWithPass(stampsRequired)
    return { ...setup, cookie: await logIn(server, setup.owner.email, setup.owner.password) }
  }
  const get = (pathname: string, cookie: string) => server.fetch(pathname, { headers: { Cookie: cookie } })
  const post = (pathname: string, cookie: string, fields: Record<string, string>) =>
    server.fetch(pathname, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
      body: new URLSearchParams(fields),
    })

  test('shows the form; a stamp redirects to the pass with its stamps, then Undo and Redeem', async () => {
    const { cardId, pass, cookie } = await signedIn()
    const scan = `/account/${cardId}/scan`
    const page = await get(scan, cookie)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('name="code"')
    expect(html).toContain('name="count"')

    const stamped = await post(scan, cookie, { intent: 'stamp', code: pass.shortCode.toLowerCase(), count: '2' })
    expect(stamped.status).toBe(302)
    expect(stamped.headers.get('Location')).toBe(`${scan}?pass=${pass.id}`)
    expect(stamped.headers.getSetCookie().some((line) => line.startsWith('__toast='))).toBe(true)
    // A form's statements count for its answer too (the body is read in the request's own async context).
    expect(
      Number(/db;desc="(\d+) queries"/.exec(stamped.headers.get('Server-Timing') ?? '')?.[1]),
    ).toBeGreaterThanOrEqual(2)
    const shown = await (await get(`${scan}?pass=${pass.id}`, cookie)).text()
    expect(shown).toContain('2 of 3 stamps')
    expect(shown).toContain('Undo')
    expect(shown).not.toContain('Redeem reward')

    expect((await post(`${scan}?pass=${pass.id}`, cookie, { intent: 'undo', passId: pass.id })).status).toBe(302)
    expect(await (await get(`${scan}?pass=${pass.id}`, cookie)).text()).toContain('0 of 3 stamps')
    expect((await post(scan, cookie, { intent: 'stamp', code: pass.shortCode, count: '3' })).status).toBe(302)
    const full = await (await get(`${scan}?pass=${pass.id}`, cookie)).text()
    expect(full).toContain('Reward earned')
    expect(full).toContain('Redeem reward')
    expect((await post(scan, cookie, { intent: 'redeem', passId: pass.id })).status).toBe(302)
    expect(await storedPass(pass.id)).toMatchObject({ stamps: 0, rewards_redeemed: 1 })
  })

  test('refusals are 404 and 409 with the message on the page', async () => {
    const { cardId, pass, cookie } = await signedIn()
    const scan = `/account/${cardId}/scan`
    const other = await ownerWithPass()
    for (const code of [newShortCode(), other.pass.shortCode]) {
      const refused = await post(scan, cookie, { intent: 'stamp', code })
      expect(refused.status).toBe(404)
      expect(await refused.text()).toContain(NO_CARD_WITH_THIS_CODE)
    }
    const tooMany = await post(scan, cookie, { intent: 'stamp', code: pass.shortCode, count: '4' })
    expect(tooMany.status).toBe(409)
    expect(await tooMany.text()).toContain('Only 3 stamps left on this card')
    await sql(`update passes set stamps = 3 where id = :id`, { id: pass.id })
    const full = await post(scan, cookie, { intent: 'stamp', code: pass.shortCode })
    expect(full.status).toBe(409)
    expect(await full.text()).toContain(CARD_FULL)
    const undo = await post(`${scan}?pass=${pass.id}`, cookie, { intent: 'undo', passId: pass.id })
    expect(undo.status).toBe(409)
    expect(await undo.text()).toContain(UNDO_EXPIRED)
  })

  test('another owner’s card, or an id that is not one, answers 404 to the page and to its form', async () => {
    const { cookie } = await signedIn()
    const other = await ownerWithPass()
    for (const cardId of [other.cardId, crypto.randomUUID(), 'not-a-card']) {
      expect((await get(`/account/${cardId}/scan`, cookie)).status).toBe(404)
      expect(
        (await post(`/account/${cardId}/scan`, cookie, { intent: 'stamp', code: other.pass.shortCode })).status,
      ).toBe(404)
    }
    expect((await storedPass(other.pass.id)).stamps).toBe(0)
    // Nor does ?pass= show another owner's pass.
    const own = await signedIn()
    const html = await (await get(`/account/${own.cardId}/scan?pass=${other.pass.id}`, own.cookie)).text()
    expect(html).not.toContain(other.pass.shortCode)
  })

  test('malformed input is 400, never 500', async () => {
    const { cardId, pass, cookie } = await signedIn()
    const scan = `/account/${cardId}/scan`
    const bodies: Record<string, string>[] = [
      { intent: 'stamp' },
      { intent: 'stamp', code: '' },
      { intent: 'stamp', code: pass.shortCode, count: 'abc' },
      { intent: 'stamp', code: pass.shortCode, count: '0' },
      { intent: 'stamp', code: pass.shortCode, count: '21' },
      { intent: 'stamp', code: pass.shortCode, count: '1.5' },
      { intent: 'stamp', code: 'x'.repeat(5000) },
      { intent: 'undo', passId: 'nope' },
      { intent: 'redeem' },
      { intent: 'explode', code: pass.shortCode },
      {},
    ]
    for (const body of bodies) {
      expect((await post(scan, cookie, body)).status, JSON.stringify(body).slice(0, 80)).toBe(400)
    }
    const json = await server.fetch(scan, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: cookie },
      body: '{"code":',
    })
    expect(json.status).toBe(400)
    expect((await storedPass(pass.id)).stamps).toBe(0)
  })

  test('signed out, the page and its form send to the login', async () => {
    const { cardId } = await ownerWithPass()
    const response = await server.fetch(`/account/${cardId}/scan`, {
      method: 'POST',
      body: new URLSearchParams({ intent: 'stamp', code: 'ABCDEFGH' }),
    })
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toMatch(/^\/login\?/)
  })
})
