import sharp from 'sharp'
import { describe, expect, test } from 'vitest'
import { createOwner, signedInOwner } from '#tests/support/account-owner.ts'
import { postJson, sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/** The card page (/account/{cardId}), its QR code pages and downloads, the poster, and the card JSON calls. */
const server = useTestServer()

async function createCard(userId: string, title = 'Coffee card') {
  const [card] = await sql<{ id: string; slug: string }>(
    `insert into cards (user_id, slug, status, title, business_name, reward) values (:userId, :slug, 'active', :title, 'Corner Coffee', 'A free coffee')
     returning id, slug`,
    { userId, slug: `detail-${Math.random().toString(36).slice(2, 10)}`, title },
  )
  return card!
}

describe('the card page', () => {
  test('shows the design, holders and the last 30 days as a chart', async () => {
    const owner = await signedInOwner(server)
    const card = await createCard(owner.id)
    const [pass] = await sql<{ id: string }>(
      `insert into passes (card_id, short_code) values (:id, 'DETAXL23') returning id`,
      { id: card.id },
    )
    await sql(
      `insert into stamp_events (pass_id, card_id, kind, count, created_at) values
         (:pass, :card, 'stamp', 3, now()), (:pass, :card, 'stamp', 2, now() - interval '3 days'), (:pass, :card, 'redeem', 5, now()),
         (:pass, :card, 'stamp', 9, now() - interval '40 days')`,
      { pass: pass!.id, card: card.id },
    )
    const html = await pageText(await server.get(`/account/${card.id}`, owner.cookie))
    expect(html).toContain('<h1>Reward Card</h1>')
    expect(html).toContain('Coffee card')
    expect(html).toMatch(/Holders<\/dt><dd>1<\/dd>/)
    expect(html).toContain('Last 30 days: 5 stamps and 1 new holders')
    expect(html).toContain(`/c/${card.slug}`)
    for (const link of ['scan', 'qr_code', 'push_notification', 'push_notification/history']) {
      expect(html).toContain(`href="/account/${card.id}/${link}"`)
    }
  })

  test('another owner’s card and malformed ids are 404', async () => {
    const owner = await signedInOwner(server)
    const foreign = await createCard((await createOwner()).id)
    for (const pathname of [
      `/account/${foreign.id}`,
      `/account/${foreign.id}/qr_code`,
      `/account/qr_code/${foreign.id}`,
      `/account/${foreign.id}/qr_code.png`,
      `/account/${foreign.id}/poster`,
      '/account/123/qr_code.svg',
    ]) {
      expect((await server.get(pathname, owner.cookie)).status, pathname).toBe(404)
    }
  })

  test('the automatic pushes switch turns off and on again (a plain form: an unticked box is absent); another owner gets 404', async () => {
    const owner = await signedInOwner(server)
    const card = await createCard(owner.id)
    const autoPush = async () =>
      (await sql<{ auto_push: boolean }>(`select auto_push from cards where id = :id`, { id: card.id }))[0]!.auto_push
    expect(await autoPush()).toBe(true)
    expect((await server.post(`/account/${card.id}`, { intent: 'auto-push' }, owner.cookie)).status).toBe(302)
    expect(await autoPush()).toBe(false)
    expect(
      (await server.post(`/account/${card.id}`, { intent: 'auto-push', autoPush: 'on' }, owner.cookie)).status,
    ).toBe(302)
    expect(await autoPush()).toBe(true)
    expect(
      (await server.post(`/account/${card.id}`, { intent: 'auto-push', autoPush: 'yes please' }, owner.cookie)).status,
    ).toBe(400)
    const stranger = await signedInOwner(server)
    expect((await server.post(`/account/${card.id}`, { intent: 'auto-push' }, stranger.cookie)).status).toBe(404)
    expect(await autoPush()).toBe(true)
  })

  test('archive, restore within the card limit, and delete after typing the title', async () => {
    const owner = await signedInOwner(server)
    const card = await createCard(owner.id)
    expect((await server.post(`/account/${card.id}`, { intent: 'archive' }, owner.cookie)).status).toBe(302)
    expect((await sql<{ status: string }>(`select status from cards where id = :id`, { id: card.id }))[0]!.status).toBe(
      'archived',
    )
    // Three other cards fill the trial's limit: restoring would exceed it.
    for (let i = 0; i < 3; i++) await createCard(owner.id, `Other ${i}`)
    const refused = await server.post(`/account/${card.id}`, { intent: 'restore' }, owner.cookie)
    expect(refused.status).toBe(409)
    expect(await refused.text()).toContain('Your plan includes 3 active cards.')
    await sql(`delete from cards where user_id = :id and title like 'Other %'`, { id: owner.id })
    expect((await server.post(`/account/${card.id}`, { intent: 'restore' }, owner.cookie)).status).toBe(302)

    const wrong = await server.post(`/account/${card.id}`, { intent: 'delete', confirm: 'coffee' }, owner.cookie)
    expect(wrong.status).toBe(400)
    expect(await wrong.text()).toContain('Type “Coffee card” to delete this card')
    expect((await server.post(`/account/${card.id}`, { intent: 'nonsense' }, owner.cookie)).status).toBe(400)
    await sql(`insert into passes (card_id, short_code) values (:id, 'GQNE2345')`, { id: card.id })
    const deleted = await server.post(`/account/${card.id}`, { intent: 'delete', confirm: 'Coffee card' }, owner.cookie)
    expect(deleted.headers.get('Location')).toBe('/account')
    expect(await sql(`select 1 from passes where short_code = 'GQNE2345'`)).toEqual([])
  })
})

describe('QR code and poster', () => {
  test('both addresses show the QR of APP_URL/c/{slug}; SVG and PNG download; the poster prints', async () => {
    const owner = await signedInOwner(server)
    const card = await createCard(owner.id)
    for (const pathname of [`/account/${card.id}/qr_code`, `/account/qr_code/${card.id}`]) {
      const html = await (await server.get(pathname, owner.cookie)).text()
      expect(html).toContain('<svg')
      expect(html).toContain(`/c/${card.slug}`)
    }
    const svg = await server.get(`/account/${card.id}/qr_code.svg`, owner.cookie)
    expect(svg.headers.get('Content-Type')).toContain('image/svg+xml')
    expect(svg.headers.get('Content-Disposition')).toContain(`${card.slug}-qr.svg`)
    expect(await svg.text()).toMatch(/^<svg/)
    const png = await server.get(`/account/${card.id}/qr_code.png`, owner.cookie)
    expect(png.headers.get('Content-Type')).toBe('image/png')
    const meta = await sharp(Buffer.from(await png.arrayBuffer())).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 1024])
    const poster = await pageText(await server.get(`/account/${card.id}/poster`, owner.cookie))
    expect(poster).toContain('Collect 10 stamps, get a reward')
    expect(poster).toContain('Your reward: A free coffee')
    expect(poster).toContain('Get my card')
  })
})

describe('card JSON calls', () => {
  test('cards/{id}, user-cards, qr_code/{cardId} and delete/{id}, owner-scoped', async () => {
    const owner = await signedInOwner(server)
    const other = await signedInOwner(server)
    const card = await createCard(owner.id)
    const one = await (await server.get(`/api/account/cards/${card.id}`, owner.cookie)).json()
    expect(one.card).toMatchObject({
      id: card.id,
      slug: card.slug,
      title: 'Coffee card',
      businessName: 'Corner Coffee',
      status: 'active',
    })
    expect((await server.get(`/api/account/cards/${card.id}`, other.cookie)).status).toBe(404)
    expect((await server.get(`/api/account/cards/not-a-uuid`, owner.cookie)).status).toBe(404)
    expect((await server.get(`/api/account/cards/${card.id}`)).status).toBe(401)
    const list = await (await server.get('/api/account/user-cards', owner.cookie)).json()
    expect(list.cards.map((c: { id: string }) => c.id)).toEqual([card.id])
    const qr = await (await server.get(`/api/account/qr_code/${card.id}`, owner.cookie)).json()
    expect(qr.join_url).toMatch(new RegExp(`/c/${card.slug}$`))
    expect(qr.qr_svg).toMatch(/^<svg/)
    expect((await server.get(`/api/account/qr_code/${card.id}`, other.cookie)).status).toBe(404)

    expect((await server.get(`/api/account/delete/${card.id}`, owner.cookie)).status).toBe(405)
    expect((await postJson(server, `/api/account/delete/${card.id}`, {}, { Cookie: other.cookie })).status).toBe(404)
    expect((await postJson(server, `/api/account/delete/${card.id}`, {}, { Cookie: owner.cookie })).status).toBe(200)
    expect((await server.get(`/api/account/cards/${card.id}`, owner.cookie)).status).toBe(404)
  })
})
