import { createCard, createOwner, sql } from '#tests/support/e2e-database.ts'
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
