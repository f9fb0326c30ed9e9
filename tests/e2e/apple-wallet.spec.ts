import { createCard, createOwner, sql } from '#tests/support/e2e-database.ts'
import { expect, test } from '#tests/support/test.ts'

// Each test runs twice (playwright.config.ts): with JavaScript, and with JavaScript turned off. The e2e server runs
// with Apple Wallet on (certificates from the test CA, tests/support/apple-certs.ts).

const PASS_URL = /\/p\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

test('the holder’s pass links to Apple Wallet, and the link downloads the signed pass', async ({ page }) => {
  const owner = await createOwner('wallet')
  const card = await createCard(owner.id, { title: 'Wallet card', stampsRequired: 6 })
  await page.goto(`/c/${card.slug}`)
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page).toHaveURL(PASS_URL)
  const passId = new URL(page.url()).pathname.split('/')[2]!
  await sql(`update passes set stamps = 2 where id = $1`, [passId])
  await page.reload()

  const link = page.getByRole('link', { name: 'Add to Apple Wallet' })
  await expect(link).toBeVisible()
  await expect(link).toHaveAttribute('href', `/p/${passId}/wallet.pkpass`)
  // Following it is a download in a desktop browser (Safari on an iPhone opens Wallet instead).
  const downloading = page.waitForEvent('download')
  await link.click()
  const download = await downloading
  expect(download.suggestedFilename()).toBe('card.pkpass')

  const response = await page.request.get(`/p/${passId}/wallet.pkpass`)
  expect(response.status()).toBe(200)
  expect(response.headers()['content-type']).toBe('application/vnd.apple.pkpass')
  const body = await response.body()
  expect(body.subarray(0, 2).toString('latin1')).toBe('PK')
})

test('at 360 px the link fits beside everything else, with nothing scrolling sideways', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 })
  const owner = await createOwner('wallet')
  const card = await createCard(owner.id, { title: 'Wallet card', stampsRequired: 12 })
  await page.goto(`/c/${card.slug}`)
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page.getByRole('link', { name: 'Add to Apple Wallet' })).toBeVisible()
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }))
  expect(widths.scroll).toBeLessThanOrEqual(widths.view)
})
