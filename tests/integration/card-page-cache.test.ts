import { expect, test } from 'vitest'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * The card page's render cache (app/main/page-caches.server.ts, cardPageVersion): like the account home's, every
 * change to what the page shows must show at once however it is made, and a cached answer is never another
 * owner's. Only the default view is cached: a range or a filter in the address always renders.
 */
const server = useTestServer()

async function page(cookie: string, cardId: string, search = '') {
  const response = await server.get(`/account/${cardId}${search}`, cookie)
  return { status: response.status, html: await pageText(response), response }
}

const queries = (response: Response) =>
  Number(/db;desc="(\d+) queries"/.exec(response.headers.get('Server-Timing') ?? '')?.[1])

/** As in account-page-cache.test.ts: of a few loads in a row, one lands in the same 15-second bucket as the last. */
async function queriesOfRepeatedLoad(cookie: string, cardId: string) {
  let fewest = Infinity
  for (let load = 0; load < 3 && fewest > 1; load++)
    fewest = Math.min(fewest, queries((await page(cookie, cardId)).response))
  return fewest
}

const figure = (html: string, label: string) =>
  new RegExp(`>${label}</dt><dd class="insight-figure__value">(\\d+)</dd>`).exec(html)?.[1]

async function ownerWithCard() {
  const owner = await createOwner()
  const cookie = await logIn(server, owner.email)
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name) values (:id, :slug, 'active', 'Alpha card', 'Corner')
     returning id`,
    { id: owner.id, slug: `card-cache-${Date.now()}-${Math.random().toString(36).slice(2, 8)}` },
  )
  return { owner, cookie, cardId: card!.id }
}

test('each change to the card page’s data shows at once; unchanged data is answered from the cache', async () => {
  const { owner, cookie, cardId } = await ownerWithCard()
  const first = await page(cookie, cardId)
  expect(first.status).toBe(200)
  expect(first.html).toContain('Alpha card')
  expect(figure(first.html, 'Stamps')).toBe('0')
  const rendered = queries(first.response)
  expect(rendered).toBeGreaterThan(1)
  expect(await queriesOfRepeatedLoad(cookie, cardId)).toBe(1)

  await sql(`update cards set title = 'Beta card' where id = :id`, { id: cardId })
  expect((await page(cookie, cardId)).html).toContain('Beta card')

  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) values (:id, 'CARDCAC2') returning id`,
    { id: cardId },
  )
  expect(figure((await page(cookie, cardId)).html, 'New holders')).toBe('1')
  await sql(`insert into stamp_events (pass_id, card_id, kind, count) values (:pass, :card, 'stamp', 4)`, {
    pass: pass!.id,
    card: cardId,
  })
  expect(figure((await page(cookie, cardId)).html, 'Stamps')).toBe('4')

  // A staff member (who accepted the invitation) is a user of their own: the people filter lists them at once.
  await sql(
    `insert into users (email, password_hash, role, employer_id, staff_name, email_confirmed_at)
     values (:email, 'x', 'staff', :owner, 'Robin Counter', now())`,
    { email: `robin-${Date.now()}@example.com`, owner: owner.id },
  )
  expect((await page(cookie, cardId)).html).toContain('Robin Counter')
  await sql(`update users set staff_name = 'Robin Till' where employer_id = :owner`, { owner: owner.id })
  expect((await page(cookie, cardId)).html).toContain('Robin Till')

  // The wallet counts (migration 0021): a pass added to Apple Wallet, saved to Google Wallet, then removed there.
  const walletFigure = (html: string, label: string) => new RegExp(`>${label}</dt><dd>(\\d+)</dd>`).exec(html)?.[1]
  await sql(`insert into apple_devices (id, push_token) values (:device, 'ab12')`, { device: `device-${pass!.id}` })
  await sql(`insert into apple_registrations (device_id, pass_id) values (:device, :pass)`, {
    device: `device-${pass!.id}`,
    pass: pass!.id,
  })
  expect(walletFigure((await page(cookie, cardId)).html, 'In Apple Wallet')).toBe('1')
  await sql(`insert into google_wallet_objects (pass_id, card_id) values (:pass, :card)`, {
    pass: pass!.id,
    card: cardId,
  })
  expect(walletFigure((await page(cookie, cardId)).html, 'In Google Wallet')).toBe('1')
  await sql(`update google_wallet_objects set state = 'gone' where pass_id = :pass`, { pass: pass!.id })
  // With the wallets off here, a count of none is not shown at all.
  expect(walletFigure((await page(cookie, cardId)).html, 'In Google Wallet')).toBeUndefined()
  await sql(`delete from apple_registrations where pass_id = :pass`, { pass: pass!.id })
  expect(walletFigure((await page(cookie, cardId)).html, 'In Apple Wallet')).toBeUndefined()
})

test('another owner’s card is never answered from the cache, and a range in the address always renders', async () => {
  const a = await ownerWithCard()
  const b = await ownerWithCard()
  await page(a.cookie, a.cardId)
  expect((await page(a.cookie, a.cardId)).status).toBe(200)
  const other = await page(b.cookie, a.cardId)
  expect(other.status).toBe(404)
  expect(other.html).not.toContain('Alpha card')

  const ranged = await page(a.cookie, a.cardId, '?range=12m')
  expect(ranged.status).toBe(200)
  expect(queries(ranged.response)).toBeGreaterThan(1)
})

test('a signed-out cookie or a disabled account is not answered from the cache', async () => {
  const { owner, cookie, cardId } = await ownerWithCard()
  await page(cookie, cardId)
  await page(cookie, cardId)
  await sql(`update users set disabled_at = now() where id = :id`, { id: owner.id })
  const response = await server.fetch(`/account/${cardId}`, { headers: { Cookie: cookie } })
  expect(response.status).toBe(302)
  expect(response.headers.get('Location')).toContain('/login')
})
