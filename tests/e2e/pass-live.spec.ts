import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { pushEndpointClient } from '#tests/support/push-endpoint-client.ts'
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

test('a message the owner sends shows on the open pass: within 2 s with JavaScript, by Refresh without', async ({
  page,
  browser,
  javaScriptEnabled,
}, testInfo) => {
  const owner = await createOwner('live-message')
  const card = await createCard(owner.id, { title: 'Live card', stampsRequired: 6 })
  await page.goto(`/c/${card.slug}`)
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page.getByText('0 of 6 stamps', { exact: true })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Latest message' })).toHaveCount(0)
  const passId = new URL(page.url()).pathname.split('/').pop()!
  // The holder allowed notifications once (a device at the local push service), so the owner can send.
  const subscription = await pushEndpointClient(process.env.E2E_PUSH_CONTROL_URL!).createSubscription('ok')
  await sql(`insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values ($1, $2, $3, $4)`, [
    passId,
    subscription.endpoint,
    subscription.keys.p256dh,
    subscription.keys.auth,
  ])

  // The owner, in another browser, writes the message from scratch and sends it after the confirm step.
  const office = await browser.newContext({ baseURL: testInfo.project.use.baseURL, javaScriptEnabled })
  const ownerPage = await office.newPage()
  await signIn(ownerPage, owner)
  await ownerPage.goto(`/account/${card.id}/push_notification/create`)
  await ownerPage.locator('main').getByLabel('Title', { exact: true }).fill('Closed on Monday')
  await ownerPage.locator('main').getByLabel('Message', { exact: true }).fill('Back on Tuesday with fresh bread.')
  await ownerPage.locator('main').getByRole('button', { name: 'Continue' }).click()
  await expect(ownerPage).toHaveURL(/\/confirm\/[0-9a-f-]{36}$/)
  await ownerPage.locator('main').getByRole('button', { name: 'Send', exact: true }).click()
  await expect(ownerPage.getByText('Sending to 1 device.')).toBeVisible()

  const message = page.getByRole('region', { name: 'Latest message' })
  if (javaScriptEnabled) {
    await expect(message).toContainText('Back on Tuesday with fresh bread.', { timeout: 2000 })
  } else {
    await page.getByRole('link', { name: 'Refresh' }).click()
    await expect(message).toContainText('Back on Tuesday with fresh bread.')
  }
  await expect(message.getByText('Closed on Monday', { exact: true })).toBeVisible()
  await expect(message.getByText(/^Sent \d{1,2} [A-Z][a-z]{2} \d{4}$/)).toBeVisible()
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
  await office.close()
})
