import { describe, expect, test } from 'vitest'
import { createOwner, signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/** The account home, plan pages, the push gate and the plan JSON calls, over HTTP against the built app. */
const server = useTestServer()

async function createCard(userId: string, status = 'active') {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name) values (:userId, :slug, :status, 'Coffee card', 'Corner Coffee') returning id`,
    { userId, slug: `card-${Math.random().toString(36).slice(2, 10)}`, status },
  )
  return card!.id
}

async function endTrial(userId: string, additionalQuota = 0) {
  await sql(
    `update subscriptions set status = 'ended', trial_ends_at = now() - interval '1 day', additional_quota = :additionalQuota where user_id = :userId`,
    {
      userId,
      additionalQuota,
    },
  )
}

describe('/account', () => {
  test('a guest is sent to /login and brought back', async () => {
    const response = await server.get('/account/plan')
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe('/login?redirectTo=%2Faccount%2Fplan')
  })

  test('lists the cards with holders and this month’s stamps, net of undos', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const [pass] = await sql<{ id: string }>(
      `insert into passes (card_id, short_code) values (:cardId, 'ABCDEFGH') returning id`,
      { cardId },
    )
    await sql(
      `insert into stamp_events (pass_id, card_id, kind, count, created_at) values
         (:passId, :cardId, 'stamp', 3, now()), (:passId, :cardId, 'undo', 1, now()),
         (:passId, :cardId, 'stamp', 5, date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' - interval '1 hour')`,
      { passId: pass!.id, cardId },
    )
    const html = await (await server.get('/account', owner.cookie)).text()
    expect(html).toContain('Your cards')
    expect(html).toMatch(/Holders<\/dt><dd>1<\/dd>/)
    expect(html).toMatch(/Stamps this month<\/dt><dd>2<\/dd>/)
    expect(html).toContain('14 days free trial left')
    expect(html).not.toContain('password_hash')
  })

  test('an owner without cards is led into card creation', async () => {
    const owner = await signedInOwner(server)
    const html = await (await server.get('/account', owner.cookie)).text()
    expect(html).toContain('Create your first stamp card')
    expect(html).toContain('href="/main"')
  })
})

describe('choosing, paying and cancelling a plan', () => {
  test('choose → invoice with instructions and waiting_payment; bad input is refused', async () => {
    const owner = await signedInOwner(server)
    expect((await server.post('/account/tariffs', { tier: '9', periodMonths: '1' }, owner.cookie)).status).toBe(400)
    expect((await server.post('/account/tariffs', { tier: '2', periodMonths: '6' }, owner.cookie)).status).toBe(400)
    const chosen = await server.post('/account/tariffs', { tier: '3', periodMonths: '12' }, owner.cookie)
    expect(chosen.status).toBe(302)
    expect(chosen.headers.get('Location')).toBe('/account/plan')
    const html = await (await server.get('/account/plan', owner.cookie)).text()
    expect(html.replaceAll('<!-- -->', '')).toMatch(/Invoice SW-\d{4}-\d{6}/)
    expect(html).toContain('$790')
    expect(html).toContain('waiting_payment')
    expect(html).toContain('Pay by bank transfer')
    const data = await (await server.get('/api/account/plan', owner.cookie)).json()
    expect(data.plan).toMatchObject({
      status: 'waiting_payment',
      sub_active_flag: 1,
      invoice: { amount_cents: 79000, duration_in_months: 12, tariff_name: 'Premium' },
    })
  })

  test('cancelling needs the confirmation and an active plan', async () => {
    const owner = await signedInOwner(server)
    expect((await server.post('/account/plan', { intent: 'cancel' }, owner.cookie)).status).toBe(400)
    expect((await server.post('/account/plan', { intent: 'cancel', understood: 'on' }, owner.cookie)).status).toBe(409)
    await sql(
      `update subscriptions set status = 'active', tariff_id = (select id from tariffs where tier = 1), period_months = 1,
         period_starts_at = now(), period_ends_at = now() + interval '30 days' where user_id = :id`,
      { id: owner.id },
    )
    const cancelled = await server.post('/account/plan', { intent: 'cancel', understood: 'on' }, owner.cookie)
    expect(cancelled.status).toBe(302)
    const html = await (await server.get('/account/plan', owner.cookie)).text()
    expect(html).toContain('Basic Plan')
    expect(html).toMatch(/Ends on \d{1,2} \w+ \d{4}/)
  })
})

describe('the push gate', () => {
  test('an ended owner is sent to /account/limits_trial; history stays reachable', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    expect((await server.get(`/account/${cardId}/push_notification`, owner.cookie)).status).toBe(200)
    await endTrial(owner.id)
    const gated = await server.get(`/account/${cardId}/push_notification`, owner.cookie)
    expect(gated.status).toBe(302)
    expect(gated.headers.get('Location')).toBe('/account/limits_trial')
    expect((await server.get(`/account/${cardId}/push_notification/history`, owner.cookie)).status).toBe(200)
    expect(await (await server.get('/account/limits_trial', owner.cookie)).text()).toContain('Your free trial is over')
  })

  test('additional quota keeps the gate open after the end', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    await endTrial(owner.id, 3)
    const html = await (await server.get(`/account/${cardId}/push_notification`, owner.cookie)).text()
    expect(html).toContain('Create push')
    expect(html).toContain('3 more messages')
  })

  test('another owner’s card, or an id that is not one, is a 404', async () => {
    const owner = await signedInOwner(server)
    const other = await createOwner()
    const foreign = await createCard(other.id)
    expect((await server.get(`/account/${foreign}/push_notification`, owner.cookie)).status).toBe(404)
    expect((await server.get(`/account/${foreign}/push_notification/history`, owner.cookie)).status).toBe(404)
    expect((await server.get(`/account/not-a-uuid/push_notification/history`, owner.cookie)).status).toBe(404)
  })
})

describe('the card limit', () => {
  test('a trial allows 3 active cards; archived cards do not count', async () => {
    const owner = await signedInOwner(server)
    for (let i = 0; i < 3; i++) await createCard(owner.id)
    const refused = await (await server.get('/main', owner.cookie)).text()
    expect(refused).toContain(
      'Your plan includes 3 active cards. Archive a card or choose a bigger plan to create another.',
    )
    expect(refused).toContain('href="/account/tariffs"')
    await sql(`update cards set status = 'archived' where id = (select id from cards where user_id = :id limit 1)`, {
      id: owner.id,
    })
    expect(await (await server.get('/main', owner.cookie)).text()).not.toContain('card limit')
  })

  test('a draft holds a place under the limit and is named as one, never passed off as an active card', async () => {
    const owner = await signedInOwner(server)
    for (let i = 0; i < 2; i++) await createCard(owner.id)
    const plan = (await (await server.get('/account/plan', owner.cookie)).text())
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
    expect(plan).toContain('Active cards 2 of 3')
    expect(plan).not.toContain('unfinished draft')
    await createCard(owner.id, 'draft')
    const withDraft = (await (await server.get('/account/plan', owner.cookie)).text())
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
    expect(withDraft).toContain('Active cards 3 of 3 (1 of them is an unfinished draft)')
    expect(await (await server.get('/main?new', owner.cookie)).text()).toContain(
      'Your plan includes 3 active cards. Archive a card or choose a bigger plan to create another. An unfinished draft holds a place too: finish or delete it.',
    )
  })

  test('an ended plan creates no cards', async () => {
    const owner = await signedInOwner(server)
    await endTrial(owner.id)
    expect(await (await server.get('/main', owner.cookie)).text()).toContain(
      'Your plan has ended, so you cannot create new cards.',
    )
  })
})

describe('JSON calls', () => {
  test('user_data has the specification’s fields', async () => {
    const owner = await signedInOwner(server)
    const response = await server.get('/api/account/user_data', owner.cookie)
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.user_info).toMatchObject({
      id: owner.id,
      email: owner.email,
      user_logo: null,
      trial_days: 14,
      total_cards: 0,
    })
    expect(body.user_tariff_info).toEqual({
      trial_days: 14,
      sub_active_flag: 1,
      tariff: null,
      user_tariff: { status: 'trial' },
      additional_quota: 0,
    })
    await sql(
      `update subscriptions set status = 'active', tariff_id = (select id from tariffs where tier = 2), period_months = 12,
         period_starts_at = now(), period_ends_at = now() + interval '1 year', trial_ends_at = now() - interval '1 day' where user_id = :id`,
      { id: owner.id },
    )
    const active = await (await server.get('/api/account/user_data', owner.cookie)).json()
    expect(active.user_tariff_info).toMatchObject({
      trial_days: 0,
      sub_active_flag: 1,
      tariff: { duration_in_months: 12, tariff_name: 'Standard' },
      user_tariff: { status: 'active' },
    })
  })

  test('a guest gets 401, and the wrong method 405', async () => {
    for (const pathname of ['/api/account/user_data', '/api/account/plan']) {
      expect((await server.get(pathname)).status).toBe(401)
      const owner = await signedInOwner(server)
      const wrong = await server.fetch(pathname, { method: 'POST', headers: { Cookie: owner.cookie } })
      expect(wrong.status).toBe(405)
    }
  })
})
