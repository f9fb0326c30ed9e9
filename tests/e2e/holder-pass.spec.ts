import { expect, expectPageError, failedLoad, test } from '#tests/support/test.ts'
import { createCard, createOwner, sql } from '#tests/support/e2e-database.ts'

// Each test runs twice (playwright.config.ts): with JavaScript, and with JavaScript turned off.

const PASS_URL = /\/p\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function joinCard(page: import('@playwright/test').Page, slug: string) {
  await page.goto(`/c/${slug}`)
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page).toHaveURL(PASS_URL)
  return page.url()
}

test('a holder gets a card, sees it with 0 stamps and the short code, and returns to the same pass', async ({ page }) => {
  const owner = await createOwner('holder')
  const card = await createCard(owner.id, { title: 'Coffee card', stampsRequired: 8 })
  await page.goto(`/c/${card.slug}`)
  await expect(page.getByText('Coffee card')).toBeVisible()
  const passUrl = await joinCard(page, card.slug)
  await expect(page.getByText('0 of 8 stamps', { exact: true })).toBeVisible()
  const [pass] = await sql<{ short_code: string }>(`select short_code from passes where card_id = $1`, [card.id])
  await expect(page.getByText(pass!.short_code, { exact: true })).toBeVisible()
  await expect(page.getByRole('img', { name: `QR code of ${pass!.short_code}` })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Add to Home Screen' })).toBeVisible()

  await page.goto(`/c/${card.slug}`)
  await expect(page).toHaveURL(passUrl)
  const passes = await sql<{ count: number }>(`select count(*)::int as count from passes where card_id = $1`, [card.id])
  expect(passes[0]!.count).toBe(1)
})

test('an archived card tells the visitor it is no longer available', async ({ page }) => {
  expectPageError(failedLoad(404, /^\/c\/[\w-]+$/))
  const owner = await createOwner('holder')
  const card = await createCard(owner.id)
  await sql(`update cards set status = 'archived' where id = $1`, [card.id])
  const response = await page.goto(`/c/${card.slug}`)
  expect(response?.status()).toBe(404)
  await expect(page.getByRole('heading', { name: 'This card is no longer available' })).toBeVisible()
  await page.getByRole('link', { name: 'Go to Stampwise' }).click()
  await expect(page).toHaveURL('/')
})

test('with JavaScript, the pass registers its service worker and opens offline', async ({ page, context, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, 'service workers need JavaScript')
  const owner = await createOwner('holder')
  const card = await createCard(owner.id, { stampsRequired: 6 })
  const passUrl = await joinCard(page, card.slug)
  const scope = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready
    return registration.scope
  })
  expect(scope).toBe(passUrl)
  // The worker keeps the page once installed; wait until it controls the page and the copy is stored.
  await expect.poll(() => page.evaluate(async (url) => Boolean(await caches.match(url)), passUrl)).toBe(true)

  await context.setOffline(true)
  await page.reload()
  await expect(page.getByText('0 of 6 stamps', { exact: true })).toBeVisible()
  // Really offline: anything the worker has not kept cannot be fetched.
  expect(await page.evaluate(() => fetch('/healthz').then(() => 'online', () => 'offline'))).toBe('offline')
  await context.setOffline(false)
})
