import crypto from 'node:crypto'
import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { TEST_GOOGLE_CLIENT_EMAIL, TEST_GOOGLE_ISSUER_ID } from '#tests/support/google-service-account.ts'
import { googleFake, whileNextObjectInsertFails, withObjectInsertsAlone } from '#tests/support/google-wallet-control.ts'
import { PHONE_WIDTHS, widthsNotFitting } from '#tests/support/page-width.ts'
import { expect, expectPageError, failedLoad, test, type Locator, type Page } from '#tests/support/test.ts'

// Each test runs twice (playwright.config.ts): with JavaScript, and with JavaScript turned off. The e2e server runs
// with Google Wallet on, talking to a local fake of Google's API (tests/support/google-wallet-fake-server.ts), and
// with Apple Wallet on. Google's save page itself (pay.google.com) is answered by the test: there is no network here.

const PASS_URL = /\/p\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const SAVE_PAGE = 'https://pay.google.com/gp/v/save/'
const objectId = (passId: string) => `${TEST_GOOGLE_ISSUER_ID}.pass-${passId}`
const classId = (cardId: string) => `${TEST_GOOGLE_ISSUER_ID}.card-${cardId}`

type SaveClaims = {
  iss: string
  aud: string
  typ: string
  origins: string[]
  payload: { loyaltyObjects: { id: string; classId: string }[] }
}
type FakeObject = {
  id: string
  classId: string
  state: string
  loyaltyPoints: { label: string; balance: { string: string } }
  barcode: { type: string; value: string; alternateText: string }
}

/** The header and claims of the JWT at the end of a save address (its first two parts, base64url JSON). */
function saveClaims(address: string): { header: { alg: string }; claims: SaveClaims } {
  expect(address.startsWith(SAVE_PAGE), `${address} is Google's save page`).toBe(true)
  const parts = address.slice(SAVE_PAGE.length).split('.')
  expect(parts, 'a signed JWT: header, claims, signature').toHaveLength(3)
  const [header, claims] = parts
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown)
  return { header: header as { alg: string }, claims: claims as SaveClaims }
}

/** Google's save page stands in as a small page of the test's own. */
async function answerGoogleSavePage(page: Page) {
  await page.route('https://pay.google.com/**', (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: '<!doctype html><html lang="en"><title>Google Wallet</title><h1>Add to Google Wallet</h1></html>',
    }),
  )
}

/** A holder joins the card on this page; answers the pass's id and its short code. */
async function joinCard(page: Page, slug: string) {
  await page.goto(`/c/${slug}`)
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page).toHaveURL(PASS_URL)
  const passId = new URL(page.url()).pathname.split('/')[2]!
  const [pass] = await sql<{ short_code: string }>(`select short_code from passes where id = $1`, [passId])
  return { passId, shortCode: pass!.short_code }
}

/**
 * Follows the save link to Google's save page. The app's insert at Google is over once the browser is there (the 303
 * comes after it), so no other test's injected failure can reach it (withObjectInsertsAlone).
 */
async function followToGoogle(page: Page, link: Locator) {
  await withObjectInsertsAlone(async () => {
    await link.click()
    await expect(page).toHaveURL((url) => url.href.startsWith(SAVE_PAGE))
  })
}

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 })
  await answerGoogleSavePage(page)
})

test('at 360 px the pass offers Save to Google Wallet beside Add to Apple Wallet; it makes the object and reaches Google’s save page', async ({
  page,
  baseURL,
}) => {
  const owner = await createOwner('google-wallet')
  const card = await createCard(owner.id, { title: 'Wallet card', stampsRequired: 6 })
  const { passId, shortCode } = await joinCard(page, card.slug)
  await sql(`update passes set stamps = 2 where id = $1`, [passId])
  await page.reload()

  const google = page.getByRole('link', { name: 'Save to Google Wallet' })
  const apple = page.getByRole('link', { name: 'Add to Apple Wallet' })
  await expect(google).toBeVisible()
  await expect(google).toHaveAttribute('href', `/p/${passId}/google-wallet`)
  await expect(apple).toBeVisible()
  expect(await widthsNotFitting(page, PHONE_WIDTHS), 'the pass page at phone widths').toEqual([])
  await page.setViewportSize({ width: 360, height: 740 })

  // The holder follows it: the app makes the card's class and the pass's object at Google, then sends the browser
  // on to Google's save page.
  await followToGoogle(page, google)
  await expect(page.getByRole('heading', { name: 'Add to Google Wallet' })).toBeVisible()
  expect(saveClaims(page.url()).claims.payload.loyaltyObjects).toEqual([
    { id: objectId(passId), classId: classId(card.id) },
  ])

  // The link itself: a 303 that is not cached (it only signs a JWT now that the object exists).
  const response = await page.request.get(`/p/${passId}/google-wallet`, { maxRedirects: 0 })
  expect(response.status()).toBe(303)
  expect(response.headers()['cache-control']).toBe('no-store')
  const { header, claims } = saveClaims(response.headers()['location']!)
  expect(header.alg).toBe('RS256')
  expect(claims).toMatchObject({
    iss: TEST_GOOGLE_CLIENT_EMAIL,
    aud: 'google',
    typ: 'savetowallet',
    origins: [baseURL],
    payload: { loyaltyObjects: [{ id: objectId(passId), classId: classId(card.id) }] },
  })

  // What Google now holds: the object with the pass's stamps and short code, under the card's class.
  expect(await googleFake<FakeObject>(`/fake/objects/${objectId(passId)}`)).toMatchObject({
    id: objectId(passId),
    classId: classId(card.id),
    state: 'ACTIVE',
    loyaltyPoints: { label: 'Stamps', balance: { string: '2 of 6' } },
    barcode: { type: 'QR_CODE', value: shortCode, alternateText: shortCode },
  })
  expect(await googleFake(`/fake/classes/${classId(card.id)}`)).toMatchObject({ id: classId(card.id) })
  expect(await googleFake<string[]>('/fake/violations')).toEqual([])
})

test('opening the pass saves nothing to Google Wallet: only following the link does (the offline worker leaves it alone)', async ({
  page,
}, testInfo) => {
  const owner = await createOwner('google-wallet-open')
  const card = await createCard(owner.id, { title: 'Wallet card', stampsRequired: 6 })
  const { passId } = await joinCard(page, card.slug)
  await page.reload()
  // With JavaScript the pass's service worker keeps the page and the files it links to (public/pass-sw.js): once it
  // is active it has fetched them. The save link is no such file: fetching it would make the object at Google (a
  // GET that changes data, by docs/product/contracts.md's exception) for a holder who never asked, and count them as
  // saved.
  if (testInfo.project.use.javaScriptEnabled !== false)
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined))
  await expect(page.getByRole('link', { name: 'Save to Google Wallet' })).toBeVisible()
  const asked = (await googleFake<{ body?: { id?: string } }[]>('/fake/requests'))!.filter(
    (request) => request.body?.id === objectId(passId),
  )
  expect(asked, 'requests to Google for this pass').toEqual([])
  expect(await sql(`select pass_id from google_wallet_objects where pass_id = $1`, [passId])).toEqual([])
})

test('when Google cannot be reached, the link shows a page saying so, which leads back to the card; later it works', async ({
  page,
}) => {
  const owner = await createOwner('google-wallet-down')
  const card = await createCard(owner.id, { title: 'Wallet card', stampsRequired: 6 })
  const { passId } = await joinCard(page, card.slug)
  const link = `/p/${passId}/google-wallet`
  // The browser logs the 503 document as a failed load.
  expectPageError(failedLoad(503, link))

  const response = await whileNextObjectInsertFails(async () => {
    const answered = page.waitForResponse((answer) => new URL(answer.url()).pathname === link, { timeout: 10_000 })
    await page.getByRole('link', { name: 'Save to Google Wallet' }).click()
    return answered
  })
  expect(response.status()).toBe(503)
  expect(response.headers()['retry-after']).toBe('60')
  await expect(page).toHaveURL(link)
  await expect(page.getByRole('heading', { name: 'Google Wallet can’t be reached' })).toBeVisible()
  await expect(page.getByRole('alert')).toContainText('your card and its stamps are safe')
  expect(await widthsNotFitting(page, PHONE_WIDTHS), 'the 503 page at phone widths').toEqual([])
  // The insert Google refused was this pass's, and nothing of it was recorded as saved.
  const inserts = (await googleFake<{ method: string; path: string; body: { id?: string }; status: number }[]>(
    '/fake/requests',
  ))!.filter((request) => request.method === 'POST' && request.body?.id === objectId(passId))
  expect(inserts.map((request) => request.status)).toEqual([503])
  expect(await googleFake(`/fake/objects/${objectId(passId)}`)).toBeUndefined()

  await page.getByRole('link', { name: 'Back to the card' }).click()
  await expect(page).toHaveURL(PASS_URL)
  expect(new URL(page.url()).pathname).toBe(`/p/${passId}`)
  await expect(page.getByRole('heading', { name: 'Your Corner Coffee stamp card' })).toBeVisible()

  // Google is back: the same link saves the pass.
  await followToGoogle(page, page.getByRole('link', { name: 'Save to Google Wallet' }))
  expect(await googleFake<FakeObject>(`/fake/objects/${objectId(passId)}`)).toMatchObject({
    loyaltyPoints: { balance: { string: '0 of 6' } },
  })
  expect(await googleFake<string[]>('/fake/violations')).toEqual([])
})

test('the owner’s card page says holders can save the card to Google Wallet, and counts those who did', async ({
  page,
}) => {
  const owner = await createOwner('google-wallet-owner')
  const card = await createCard(owner.id, { title: 'Wallet card', stampsRequired: 6 })
  const figure = (name: string) =>
    page
      .locator('.account-card__stats > div')
      .filter({ has: page.getByText(name, { exact: true }) })
      .locator('dd')
  // Two holders: one saves the card to Google Wallet, the other only keeps the web pass.
  const { passId } = await joinCard(page, card.slug)
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
  const shortCode = Array.from(crypto.randomBytes(8), (byte) => alphabet[byte % 32]).join('')
  await sql(`insert into passes (card_id, short_code) values ($1, $2)`, [card.id, shortCode])
  await signIn(page, owner)
  await page.goto(`/account/${card.id}`)
  await expect(
    page.getByText('Google Wallet: holders can save this card to Google Wallet from their card page.'),
  ).toBeVisible()
  await expect(figure('Holders')).toHaveText('2')
  await expect(figure('In Google Wallet')).toHaveText('0')

  await page.goto(`/p/${passId}`)
  await followToGoogle(page, page.getByRole('link', { name: 'Save to Google Wallet' }))
  await page.goto(`/account/${card.id}`)
  await expect(figure('In Google Wallet')).toHaveText('1')
  // Following the link again saves nothing new.
  expect((await page.request.get(`/p/${passId}/google-wallet`, { maxRedirects: 0 })).status()).toBe(303)
  await page.reload()
  await expect(figure('In Google Wallet')).toHaveText('1')
  await expect(figure('Holders')).toHaveText('2')
  expect(await googleFake<string[]>('/fake/violations')).toEqual([])
})
