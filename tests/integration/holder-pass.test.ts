import { gzipSync } from 'node:zlib'
import { expect, test } from 'vitest'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/** The holder's side of a card: joining at /c/{slug}, the pass at /p/{passId}, its manifest and icons. */
const server = useTestServer()

let counter = 0
async function createCard({
  status = 'active',
  stampsRequired = 8,
  businessName = 'Corner Coffee',
}: { status?: string; stampsRequired?: number; businessName?: string } = {}) {
  const owner = await createOwner()
  const slug = `holder-${Date.now().toString(36)}-${++counter}`
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward, terms, stamp_icon, background_color)
     values (:userId, :slug, :status, 'Coffee card', :businessName, :stampsRequired, 'A free flat white', 'One per visit', 'coffee', '#7a3e12')
     returning id`,
    { userId: owner.id, slug, status, stampsRequired, businessName },
  )
  return { id: card!.id, slug, ownerId: owner.id }
}

const join = (slug: string, cookie?: string) => server.post(`/c/${slug}`, {}, cookie)
const passIdOf = (response: Response) => /^\/p\/([0-9a-f-]{36})$/.exec(response.headers.get('Location') ?? '')?.[1]
const cookieOf = (response: Response) => response.headers.getSetCookie()[0]?.split(';')[0]
const passesOf = async (cardId: string) =>
  sql<{ id: string; short_code: string }>(`select id, short_code from passes where card_id = :cardId`, { cardId })

test('joining creates one pass; the device’s cookie leads back to it; another device gets its own', async () => {
  const card = await createCard()
  const joinPage = await server.fetch(`/c/${card.slug}`)
  expect(joinPage.status).toBe(200)
  const joinHtml = await pageText(joinPage)
  expect(joinHtml).toContain('Get my card')
  expect(joinHtml).toContain('Corner Coffee')

  const joined = await join(card.slug)
  expect(joined.status).toBe(303)
  const passId = passIdOf(joined)
  expect(passId).toBeDefined()
  const setCookie = joined.headers.getSetCookie()[0]!
  expect(setCookie).toMatch(/HttpOnly/i)
  expect(setCookie).toMatch(/SameSite=Lax/i)
  expect(setCookie).toMatch(/Max-Age=31536000/)
  expect(setCookie).toMatch(/Path=\/c(;|$)/)
  const cookie = cookieOf(joined)!

  const again = await server.fetch(`/c/${card.slug}`, { headers: { Cookie: cookie } })
  expect(again.status).toBe(302)
  expect(passIdOf(again)).toBe(passId)
  const postedAgain = await join(card.slug, cookie)
  expect(passIdOf(postedAgain)).toBe(passId)

  const otherDevice = await join(card.slug)
  expect(passIdOf(otherDevice)).not.toBe(passId)
  const passes = await passesOf(card.id)
  expect(passes).toHaveLength(2)
  for (const pass of passes) expect(pass.short_code).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/)
  expect(new Set(passes.map((pass) => pass.short_code)).size).toBe(2)
})

test('a GET never creates a pass, and a forged or foreign pass cookie is ignored', async () => {
  const card = await createCard()
  const other = await createCard()
  await server.fetch(`/c/${card.slug}`)
  expect(await passesOf(card.id)).toHaveLength(0)
  const otherPass = passIdOf(await join(other.slug))!
  const forged = `__pass-${card.id}=${encodeURIComponent(Buffer.from(JSON.stringify(otherPass)).toString('base64'))}`
  expect((await server.fetch(`/c/${card.slug}`, { headers: { Cookie: forged } })).status).toBe(200)
  const joined = await join(card.slug, forged)
  expect(passIdOf(joined)).not.toBe(otherPass)
})

test('archived, draft and unknown cards answer a friendly 404, and take no holders', async () => {
  for (const status of ['archived', 'draft']) {
    const card = await createCard({ status })
    const page = await server.fetch(`/c/${card.slug}`)
    expect(page.status).toBe(404)
    expect(await pageText(page)).toContain('This card is no longer available')
    expect((await join(card.slug)).status).toBe(404)
    expect(await passesOf(card.id)).toHaveLength(0)
  }
  for (const slug of ['no-such-card', 'UPPER', 'a', '%00', '..%2F..', 'x'.repeat(300)]) {
    expect((await server.fetch(`/c/${slug}`)).status).toBe(404)
    expect((await join(slug)).status).toBe(404)
  }
})

test('malformed or unknown pass ids answer 404, never 500', async () => {
  const ids = ['nope', '00000000-0000-0000-0000-000000000000', '%27%20or%201%3D1', 'x'.repeat(500), '%E0%A4%A']
  for (const id of ids) {
    for (const suffix of ['', '/manifest.webmanifest', '/icons/192-abc.png', '/logo']) {
      const response = await server.fetch(`/p/${id}${suffix}`)
      expect([400, 404], `/p/${id}${suffix}`).toContain(response.status)
    }
  }
  const page = await server.fetch('/p/00000000-0000-0000-0000-000000000000')
  expect(await pageText(page)).toContain('We can’t find this card')
})

test('the owner hears about the first holder once', async () => {
  const card = await createCard()
  await join(card.slug)
  await join(card.slug)
  await join(card.slug)
  const notices = await sql<{ kind: string; link: string; dedupe_key: string }>(
    `select kind, link, dedupe_key from notices where user_id = :userId`,
    { userId: card.ownerId },
  )
  expect(notices).toEqual([
    { kind: 'first_holder', link: `/account/${card.id}`, dedupe_key: `first-holder:${card.id}` },
  ])
})

test('the pass page shows progress, the reward once earned, the QR and short code, in under 20 kB gzipped', async () => {
  const card = await createCard({ stampsRequired: 5 })
  const passId = passIdOf(await join(card.slug))!
  const [pass] = await sql<{ short_code: string }>(`select short_code from passes where id = :passId`, { passId })
  const first = await server.fetch(`/p/${passId}`)
  expect(first.status).toBe(200)
  const html = await pageText(first)
  expect(html).toContain('0 of 5 stamps')
  expect(html).not.toContain('Reward earned')
  expect(html).toContain('A free flat white')
  expect(html).toContain('One per visit')
  expect(html).toContain(pass!.short_code)
  expect(html).toMatch(/<svg[^>]*viewBox/)
  expect(html).toContain(`<link rel="manifest" href="/p/${passId}/manifest.webmanifest"`)
  expect(html).toContain('Add to Home Screen')
  expect(html).toContain('Install app')

  const stylesheets = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((match) => match[1]!)
  const css = await Promise.all(stylesheets.map(async (href) => (await server.fetch(href)).text()))
  const raw = await (await server.fetch(`/p/${passId}`)).text()
  const total = Buffer.byteLength(raw) + css.reduce((sum, sheet) => sum + Buffer.byteLength(sheet), 0)
  const gzipped = gzipSync(raw).byteLength + css.reduce((sum, sheet) => sum + gzipSync(sheet).byteLength, 0)
  console.info(`pass page: HTML ${Buffer.byteLength(raw)} B, HTML+CSS ${total} B, gzipped ${gzipped} B`)
  expect(gzipped).toBeLessThan(20_000)

  await sql(`update passes set stamps = 3 where id = :passId`, { passId })
  expect(await pageText(await server.fetch(`/p/${passId}`))).toContain('3 of 5 stamps')
  await sql(`update passes set stamps = 5 where id = :passId`, { passId })
  const earned = await pageText(await server.fetch(`/p/${passId}`))
  expect(earned).toContain('5 of 5 stamps')
  expect(earned).toContain('Reward earned: A free flat white')
})

test('a cached pass page still carries its own CSP nonce, and a card change shows at once', async () => {
  const card = await createCard()
  const passId = passIdOf(await join(card.slug))!
  await server.fetch(`/p/${passId}`)
  const cached = await server.fetch(`/p/${passId}`)
  expect(cached.headers.get('Server-Timing')).toContain('db;desc="1 queries"')
  const nonce = /'nonce-([^']+)'/.exec(cached.headers.get('Content-Security-Policy') ?? '')?.[1]
  expect(await cached.text()).toContain(`nonce="${nonce}"`)
  await sql(`update cards set title = 'Tea card' where id = :id`, { id: card.id })
  expect(await pageText(await server.fetch(`/p/${passId}`))).toContain('Tea card')
})

test('the manifest names the card and opens the pass; its icons are PNGs cached for good', async () => {
  const card = await createCard()
  const passId = passIdOf(await join(card.slug))!
  const response = await server.fetch(`/p/${passId}/manifest.webmanifest`)
  expect(response.status).toBe(200)
  expect(response.headers.get('Content-Type')).toContain('application/manifest+json')
  const manifest = (await response.json()) as Record<string, unknown> & {
    icons: { src: string; sizes: string; type: string }[]
  }
  expect(manifest).toMatchObject({
    name: 'Coffee card — Corner Coffee',
    display: 'standalone',
    start_url: `/p/${passId}`,
    scope: `/p/${passId}`,
    theme_color: '#7a3e12',
    background_color: '#7a3e12',
  })
  expect(typeof manifest.short_name).toBe('string')
  expect(manifest.icons.map((icon) => icon.sizes)).toEqual(['192x192', '512x512'])
  for (const icon of manifest.icons) {
    const image = await server.fetch(icon.src)
    expect(image.status).toBe(200)
    expect(image.headers.get('Content-Type')).toBe('image/png')
    expect(image.headers.get('Cache-Control')).toContain('immutable')
    const bytes = Buffer.from(await image.arrayBuffer())
    expect(bytes.subarray(1, 4).toString()).toBe('PNG')
    expect(bytes.readUInt32BE(16)).toBe(Number(icon.sizes.split('x')[0]))
  }
})

test('pass creation is limited per address, with a 429 and a message', async () => {
  const card = await createCard()
  await join(card.slug)
  await sql(`update rate_limit_counters set points = 100000 where key like 'pass-ip:%'`)
  const limited = await join(card.slug)
  expect(limited.status).toBe(429)
  expect(await pageText(limited)).toContain('Too many attempts')
  await sql(`delete from rate_limit_counters where key like 'pass-ip:%'`)
})

test('the pass page has one h1, and the manifest’s short name has no trailing space and fits 12 characters', async () => {
  // 'Corner Cafe Bar'.slice(0, 12) is 'Corner Cafe ': the short name the review found.
  const card = await createCard({ businessName: 'Corner Cafe Bar' })
  const passId = passIdOf(await join(card.slug))!
  const manifest = (await (await server.fetch(`/p/${passId}/manifest.webmanifest`)).json()) as { short_name: string }
  expect(manifest.short_name).toBe('Corner Cafe')
  const html = await pageText(await server.fetch(`/p/${passId}`))
  expect(html.match(/<h1[\s>]/g)).toHaveLength(1)
  expect(html).toMatch(/<h1>Your Corner Cafe Bar stamp card<\/h1>/)
})

/** A pass with a stamp, a push subscription and an automatic push queued for it, as a holder's would have. */
async function passWithHistory(card: { id: string; slug: string; ownerId: string }) {
  const joined = await join(card.slug)
  const passId = passIdOf(joined)!
  await sql(`update passes set stamps = 3 where id = :passId`, { passId })
  await sql(
    `insert into stamp_events (pass_id, card_id, actor_id, kind, count) values (:passId, :cardId, :ownerId, 'stamp', 3)`,
    { passId, cardId: card.id, ownerId: card.ownerId },
  )
  await sql(
    `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values (:passId, :endpoint, 'p256dh', 'auth')`,
    { passId, endpoint: `https://fcm.googleapis.com/fcm/send/${passId}` },
  )
  await sql(
    `insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota)
     values (:cardId, :ownerId, :passId, 'stamp', 'A stamp', '3 of 8', 'done', false)`,
    { passId, cardId: card.id, ownerId: card.ownerId },
  )
  return { passId, cookie: cookieOf(joined)! }
}

const removePage = (passId: string, cookie?: string) => server.get(`/c/remove/${passId}`, cookie)
const remove = (passId: string, cookie?: string) => server.post(`/c/remove/${passId}`, {}, cookie)
const rowsOf = async (passId: string) => {
  const [row] = await sql<{ passes: number; subscriptions: number; notifications: number }>(
    `select (select count(*) from passes where id = :passId)::int as passes,
            (select count(*) from push_subscriptions where pass_id = :passId)::int as subscriptions,
            (select count(*) from notifications where pass_id = :passId)::int as notifications`,
    { passId },
  )
  return row
}

test('a holder removes their card from the device that got it: the pass and its pushes go, the owner’s stamp figures stay, joining again makes a new pass', async () => {
  const card = await createCard()
  const { passId, cookie } = await passWithHistory(card)

  const confirm = await removePage(passId, cookie)
  expect(confirm.status).toBe(200)
  expect(confirm.headers.get('Cache-Control')).toContain('no-store')
  const confirmHtml = await pageText(confirm)
  expect(confirmHtml).toContain('Remove this card?')
  expect(confirmHtml).toContain('Your 3 of 8 stamps at Corner Coffee will be lost')
  expect(confirmHtml).toContain('Remove my card')
  expect(await rowsOf(passId)).toEqual({ passes: 1, subscriptions: 1, notifications: 1 })

  const removed = await remove(passId, cookie)
  expect(removed.status).toBe(303)
  expect(removed.headers.get('Location')).toBe(`/c/${card.slug}`)
  const cookies = removed.headers.getSetCookie()
  expect(cookies.find((value) => value.startsWith(`__pass-${card.id}=`))).toMatch(/Max-Age=0/)
  expect(cookies.find((value) => value.startsWith('__toast='))).toBeDefined()
  expect(await rowsOf(passId)).toEqual({ passes: 0, subscriptions: 0, notifications: 0 })
  // The owner's record: the stamp given is still counted, linked to no pass.
  expect(
    await sql(`select pass_id, kind, count from stamp_events where card_id = :cardId`, { cardId: card.id }),
  ).toEqual([{ pass_id: null, kind: 'stamp', count: 3 }])

  // The join page shows the notice, and a device still sending the old cookie is not led to the removed pass.
  const toast = cookies.find((value) => value.startsWith('__toast='))!.split(';')[0]!
  const joinPage = await server.fetch(`/c/${card.slug}`, { headers: { Cookie: `${cookie}; ${toast}` } })
  expect(joinPage.status).toBe(200)
  expect(await pageText(joinPage)).toContain('Your card was removed')
  const again = passIdOf(await join(card.slug, cookie))
  expect(again).toBeDefined()
  expect(again).not.toBe(passId)
  expect((await server.fetch(`/p/${passId}`)).status).toBe(404)
  expect((await remove(passId, cookie)).status).toBe(404)
})

test('nobody but the device that got it removes a pass: not with its address alone, nor with another pass’s cookie; a GET removes nothing', async () => {
  const card = await createCard()
  const { passId } = await passWithHistory(card)
  const sameCard = cookieOf(await join(card.slug))!
  const otherCard = await createCard()
  const otherCookie = cookieOf(await join(otherCard.slug))!
  // Another card's cookie, renamed as if it were this card's: its signature is for another value's name.
  const renamed = otherCookie.replace(`__pass-${otherCard.id}=`, `__pass-${card.id}=`)
  for (const cookie of [undefined, sameCard, otherCookie, renamed, `__pass-${card.id}=${passId}`]) {
    const page = await removePage(passId, cookie)
    expect(page.status, String(cookie)).toBe(403)
    const html = await pageText(page)
    expect(html).toContain('Only the browser this card was got in can remove it')
    expect(html).not.toContain('Remove my card')
    const refused = await remove(passId, cookie)
    expect(refused.status, String(cookie)).toBe(403)
    expect(await pageText(refused)).toContain('Only the browser this card was got in can remove it')
  }
  expect(await rowsOf(passId)).toEqual({ passes: 1, subscriptions: 1, notifications: 1 })
  for (const id of ['nope', '00000000-0000-0000-0000-000000000000', '%27%20or%201%3D1']) {
    expect((await removePage(id)).status).toBe(404)
    expect((await remove(id)).status).toBe(404)
  }
})

test('a holder of an archived card may remove it too, and lands on the home page with the notice', async () => {
  const card = await createCard()
  const { passId, cookie } = await passWithHistory(card)
  await sql(`update cards set status = 'archived' where id = :id`, { id: card.id })
  const removed = await remove(passId, cookie)
  expect(removed.status).toBe(303)
  expect(removed.headers.get('Location')).toBe('/')
  expect(await rowsOf(passId)).toEqual({ passes: 0, subscriptions: 0, notifications: 0 })
})
