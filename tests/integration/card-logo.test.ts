import sharp from 'sharp'
import { describe, expect, test } from 'vitest'
import { randomShortCode } from '#models/pass.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * Issue 14, item 14: the card's logo on every page that draws the card (one component, CardPreview), served as PNG
 * at the card's public logo address; a card without a logo draws no image.
 */
const server = useTestServer()

/** A card stored as the design form stores it: the logo square, as WebP. */
async function createCard(userId: string, withLogo: boolean) {
  const logo = withLogo
    ? await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c0392b' } })
        .webp()
        .toBuffer()
    : null
  const [card] = await sql<{ id: string; slug: string }>(
    `insert into cards (user_id, slug, status, title, business_name, reward, logo, logo_content_type)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 'A free coffee', :logo, :type) returning id, slug`,
    { userId, slug: `logo-${Math.random().toString(36).slice(2, 10)}`, logo, type: logo ? 'image/webp' : null },
  )
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code, stamps) values (:id, :code, 2) returning id`,
    {
      id: card!.id,
      code: randomShortCode(),
    },
  )
  return { ...card!, passId: pass!.id }
}

const pages = (card: { id: string; slug: string; passId: string }) => [
  { pathname: `/c/${card.slug}`, guest: true },
  { pathname: `/account/${card.id}/qr_code` },
  { pathname: `/account/qr_code/${card.id}` },
  { pathname: `/account/${card.id}/poster` },
  { pathname: `/account/${card.id}` },
  { pathname: '/account' },
  { pathname: `/account/${card.id}/scan` },
  { pathname: `/account/${card.id}/scan?pass=${card.passId}` },
]

const logoSources = (html: string) =>
  [...html.matchAll(/<img[^>]*class="card-preview__logo"[^>]*>/g)].map((tag) =>
    tag[0].match(/src="([^"]+)"/)![1]!.replaceAll('&amp;', '&'),
  )

describe('the card’s logo', () => {
  test('every page that shows the card shows its logo, a PNG that answers 200 to anyone', async () => {
    const owner = await createOwner()
    const cookie = await logIn(server, owner.email)
    const card = await createCard(owner.id, true)
    for (const page of pages(card)) {
      const response = await server.get(page.pathname, page.guest ? undefined : cookie)
      expect(response.status, page.pathname).toBe(200)
      const sources = logoSources(await response.text())
      expect(sources.length, `${page.pathname} draws the logo`).toBeGreaterThan(0)
      for (const src of sources) {
        expect(src, page.pathname).toMatch(new RegExp(`^/cards/${card.id}/logo\\.png\\?v=[0-9a-z]+$`))
        // Public: the join page's guests load it too.
        const image = await server.get(src)
        expect(image.status, src).toBe(200)
        expect(image.headers.get('Content-Type')).toBe('image/png')
        expect(image.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable')
        const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata()
        expect([meta.format, meta.width, meta.height]).toEqual(['png', 64, 64])
      }
    }
  }, 90_000)

  test('a card without a logo shows no image on its pages; its logo address answers one drawn from its stamp icon (for Google Wallet)', async () => {
    const owner = await createOwner()
    const cookie = await logIn(server, owner.email)
    const card = await createCard(owner.id, false)
    for (const page of pages(card)) {
      const html = await (await server.get(page.pathname, page.guest ? undefined : cookie)).text()
      expect(html, page.pathname).toContain('card-preview')
      expect(logoSources(html), page.pathname).toEqual([])
    }
    const drawn = await server.get(`/cards/${card.id}/logo.png`)
    expect([drawn.status, drawn.headers.get('Content-Type')]).toEqual([200, 'image/png'])
    const meta = await sharp(Buffer.from(await drawn.arrayBuffer())).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 660, 660])
    expect((await server.get(`/cards/${crypto.randomUUID()}/logo.png`)).status).toBe(404)
    expect((await server.get('/cards/not-a-uuid/logo.png')).status).toBe(404)
  })

  test('a changed logo gets a new address; an old address is not cached for good', async () => {
    const owner = await createOwner()
    const cookie = await logIn(server, owner.email)
    const card = await createCard(owner.id, true)
    const [before] = logoSources(await (await server.get(`/account/${card.id}`, cookie)).text())
    await sql(`update cards set logo = :logo, updated_at = now() + interval '1 second' where id = :id`, {
      id: card.id,
      logo: await sharp({ create: { width: 32, height: 32, channels: 3, background: '#2980b9' } })
        .webp()
        .toBuffer(),
    })
    const [after] = logoSources(await (await server.get(`/account/${card.id}`, cookie)).text())
    expect(after).not.toBe(before)
    const stale = await server.get(before!)
    expect(stale.headers.get('Cache-Control')).toBe('no-cache')
    expect((await sharp(Buffer.from(await stale.arrayBuffer())).metadata()).width).toBe(32)
  })
})
