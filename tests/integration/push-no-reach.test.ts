import crypto from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { localInputValue } from '#app/utils/schedule-time.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * Reach (issue 30, item 6): a card that reaches nobody says so once, on every page where a message starts, with what
 * brings customers within reach; the confirm page's Send is disabled then (a forged Send is still a 409, said
 * once); Schedule is allowed, since reach may grow by then, and says that nobody can receive it yet.
 */
const server = useTestServer()

const NOTICE = 'Nobody can receive a message from this card yet'
const base = (cardId: string) => `/account/${cardId}/push_notification`
const text = async (response: Response) =>
  (await response.text())
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1

async function createCard(userId: string) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name) values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee') returning id`,
    { userId, slug: `reach-${crypto.randomBytes(5).toString('hex')}` },
  )
  return card!.id
}

async function addHolder(cardId: string, { subscribed = false } = {}) {
  const shortCode = Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join('')
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) values (:cardId, :shortCode) returning id`,
    { cardId, shortCode },
  )
  if (subscribed)
    await sql(
      `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values (:passId, :endpoint, 'p256dh-key', 'auth-key')`,
      { passId: pass!.id, endpoint: `https://fcm.googleapis.com/fcm/send/r-${shortCode}` },
    )
}

async function createDraft(cookie: string, cardId: string) {
  const response = await server.post(`${base(cardId)}/create`, { title: 'Double stamps', body: 'Only today!' }, cookie)
  expect(response.status).toBe(302)
  return response.headers.get('Location')!.split('/').pop()!
}

describe('a card that reaches nobody', () => {
  test('says so once on each page where a message starts, with what raises reach', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const [template] = await sql<{ id: string }>(`select id from templates where user_id is null limit 1`)
    const pages = ['', '/create', '/template', `/template/${template!.id}/create`]
    for (const page of pages) {
      const html = await text(await server.get(`${base(cardId)}${page}`, owner.cookie))
      expect(occurrences(html, NOTICE), page).toBe(1)
      expect(html, page).toContain('The card has no holders yet.')
      expect(html, page).toContain('After a stamp, ask them to tap ‘Turn on notifications’ on their card.')
      expect(html, page).toContain('On an iPhone, notifications need the card on the home screen first')
    }

    await addHolder(cardId)
    await addHolder(cardId)
    expect(await text(await server.get(`${base(cardId)}/create`, owner.cookie))).toContain(
      'None of its 2 holders have turned on notifications or added the card to a wallet.',
    )

    // One holder within reach: the notice is gone everywhere.
    await addHolder(cardId, { subscribed: true })
    for (const page of pages)
      expect(await text(await server.get(`${base(cardId)}${page}`, owner.cookie)), page).not.toContain(NOTICE)
  })

  test('the confirm page disables Send and says why once; a forged Send is a 409 that says it once too', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    await addHolder(cardId)
    const id = await createDraft(owner.cookie, cardId)
    const confirmHtml = await (await server.get(`${base(cardId)}/confirm/${id}`, owner.cookie)).text()
    expect(confirmHtml).toMatch(/<button type="submit" class="button" disabled=""[^>]*>Send<\/button>/)
    const confirm = await text(new Response(confirmHtml))
    expect(occurrences(confirm, NOTICE), confirm).toBe(1)
    expect(confirm).not.toContain('No holder of this card has turned on notifications yet.')

    const forged = await server.post(`${base(cardId)}/confirm/${id}`, { intent: 'send', audience: 'all' }, owner.cookie)
    expect(forged.status).toBe(409)
    const refused = await text(forged)
    expect(occurrences(refused, NOTICE)).toBe(1)
    expect(refused).not.toContain('No holder of this card has turned on notifications yet.')
    expect(await sql(`select status from notifications where id = :id`, { id })).toEqual([{ status: 'draft' }])

    // Another audience with nobody in reach: its own sentence, once, and Send disabled.
    await addHolder(cardId, { subscribed: true })
    const audience = await (await server.get(`${base(cardId)}/confirm/${id}?audience=one_to_go`, owner.cookie)).text()
    expect(
      occurrences(
        await text(new Response(audience)),
        'No holder in this audience can be reached: choose another audience.',
      ),
    ).toBe(1)
    expect(audience).toMatch(/disabled=""[^>]*>Send<\/button>/)
    const reachable = await (await server.get(`${base(cardId)}/confirm/${id}`, owner.cookie)).text()
    expect(reachable).not.toMatch(/disabled=""[^>]*>Send<\/button>/)
  })

  test('Schedule is allowed (reach may grow by then) and says that nobody can receive it yet', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const id = await createDraft(owner.cookie, cardId)
    const when = localInputValue(new Date(Date.now() + 3 * 3_600_000), 'UTC')
    await sql(`update users set time_zone = 'UTC' where id = :id`, { id: owner.id })
    const response = await server.post(
      `${base(cardId)}/confirm/${id}`,
      { intent: 'schedule', audience: 'all', when },
      owner.cookie,
    )
    expect(response.status).toBe(302)
    const toast = /__toast=[^;]*/.exec(response.headers.get('Set-Cookie') ?? '')?.[0]
    expect(toast).toBeTruthy()
    const list = await text(await server.get(response.headers.get('Location')!, `${owner.cookie}; ${toast}`))
    expect(list).toContain('Nobody can receive it yet: it goes to those who can be reached by then.')
    expect(await sql(`select status from notifications where id = :id`, { id })).toEqual([{ status: 'scheduled' }])
  })
})
