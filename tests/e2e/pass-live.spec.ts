import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { expect, test } from '#tests/support/test.ts'

// Runs twice (playwright.config.ts): with JavaScript, and without (docs/decisions/050-open-pass-refresh.md).

test.use({ viewport: { width: 360, height: 740 } })

test('the open pass shows a new stamp through its Refresh link, and with JavaScript when the tab comes back', async ({
  page,
  javaScriptEnabled,
}) => {
  const owner = await createOwner('live')
  const card = await createCard(owner.id, { title: 'Live card', stampsRequired: 6 })
  await page.goto(`/c/${card.slug}`)
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page.getByText('0 of 6 stamps', { exact: true })).toBeVisible()
  const passId = new URL(page.url()).pathname.split('/').pop()!

  // A stamp (as the owner's scan page records it), then the plain link: the new count.
  await sql(`update passes set stamps = stamps + 1 where id = $1`, [passId])
  await page.getByRole('link', { name: 'Refresh' }).click()
  await expect(page.getByText('1 of 6 stamps', { exact: true })).toBeVisible()
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)

  if (!javaScriptEnabled) return
  // Back to the foreground: the loader is asked again without a click or a reload.
  await sql(`update passes set stamps = stamps + 1 where id = $1`, [passId])
  await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')))
  await expect(page.getByText('2 of 6 stamps', { exact: true })).toBeVisible({ timeout: 2000 })
})

test('with JavaScript, the open pass in the foreground shows a stamp, an undo and a design change within 2 s', async ({
  page,
  browser,
  javaScriptEnabled,
}, testInfo) => {
  test.skip(!javaScriptEnabled, 'without JavaScript the Refresh link above does it')
  const owner = await createOwner('live-stream')
  const card = await createCard(owner.id, { title: 'Live card', stampsRequired: 6 })
  await page.goto(`/c/${card.slug}`)
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page.getByText('0 of 6 stamps', { exact: true })).toBeVisible()
  const shortCode = (await page.locator('.pass-page__short-code').textContent())!.trim()

  // The owner, in another browser, stamps through the scan page as at the counter.
  const counter = await browser.newContext({ baseURL: testInfo.project.use.baseURL })
  const ownerPage = await counter.newPage()
  await signIn(ownerPage, owner)
  await ownerPage.goto(`/account/${card.id}/scan`)
  await ownerPage.getByLabel('Pass code').fill(shortCode)
  await ownerPage.getByRole('button', { name: 'Give stamp' }).click()
  await expect(ownerPage.locator('.scan-pass__progress')).toContainText('1')
  await expect(page.getByText('1 of 6 stamps', { exact: true })).toBeVisible({ timeout: 2000 })

  await ownerPage.getByRole('button', { name: 'Undo' }).click()
  await expect(page.getByText('0 of 6 stamps', { exact: true })).toBeVisible({ timeout: 2000 })

  // A design change: the stamps needed, as the owner's edit page saves it.
  await sql(`update cards set stamps_required = 7 where id = $1`, [card.id])
  await expect(page.getByText('0 of 7 stamps', { exact: true })).toBeVisible({ timeout: 2000 })
  await counter.close()
})
