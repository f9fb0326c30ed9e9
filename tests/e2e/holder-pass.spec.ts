import { createCard, createOwner, sql } from '#tests/support/e2e-database.ts'
import { pushEndpointClient } from '#tests/support/push-endpoint-client.ts'
import { type PushSubscriptionJSON } from '#tests/support/push-endpoint.ts'
import { expect, expectPageError, failedLoad, failedWithoutAnswer, test, type Page } from '#tests/support/test.ts'

// Each test runs twice (playwright.config.ts): with JavaScript, and with JavaScript turned off.

const PASS_URL = /\/p\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function joinCard(page: import('@playwright/test').Page, slug: string) {
  await page.goto(`/c/${slug}`)
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page).toHaveURL(PASS_URL)
  return page.url()
}

test('a holder gets a card, sees it with 0 stamps and the short code, and returns to the same pass', async ({
  page,
}) => {
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

test('with JavaScript, the pass registers its service worker and opens offline', async ({
  page,
  context,
  javaScriptEnabled,
}) => {
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
  expectPageError(failedWithoutAnswer('/healthz'))
  expect(
    await page.evaluate(() =>
      fetch('/healthz').then(
        () => 'online',
        () => 'offline',
      ),
    ),
  ).toBe('offline')
  await context.setOffline(false)
})

/** Page errors and console errors (a hydration mismatch shows as both), gathered for the test to check. */
function collectErrors(page: Page) {
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`)
  })
  return errors
}

/**
 * Chromium here cannot subscribe for real (its push service is Google's, unreachable), so its PushManager hands out
 * a subscription of our own push service (tests/support/push-endpoint-server.ts), kept across reloads as a real one is.
 */
function fakePushManager(subscription: PushSubscriptionJSON) {
  const KEY = 'test-push-subscribed'
  const current = () =>
    sessionStorage.getItem(KEY)
      ? {
          endpoint: subscription.endpoint,
          toJSON: () => subscription,
          unsubscribe: async () => {
            sessionStorage.removeItem(KEY)
            return true
          },
        }
      : null
  PushManager.prototype.subscribe = async function () {
    sessionStorage.setItem(KEY, '1')
    return current() as unknown as PushSubscription
  }
  PushManager.prototype.getSubscription = async function () {
    return current() as unknown as PushSubscription | null
  }
}

test('a returning holder’s pass hydrates cleanly, turns notifications on, shows a new stamp on reload and says when it is an offline copy', async ({
  page,
  context,
  baseURL,
  javaScriptEnabled,
}) => {
  test.skip(!javaScriptEnabled, 'service workers need JavaScript')
  const errors = collectErrors(page)
  await context.grantPermissions(['notifications'], { origin: baseURL })
  const subscription = await pushEndpointClient(process.env.E2E_PUSH_CONTROL_URL!).createSubscription()
  await page.addInitScript(fakePushManager, subscription)
  const owner = await createOwner('holder')
  const card = await createCard(owner.id, { stampsRequired: 6 })
  const passUrl = await joinCard(page, card.slug)
  const passId = passUrl.split('/p/')[1]!
  // The worker is active and has kept the page: from now on the holder is a returning one.
  await page.evaluate(() => navigator.serviceWorker.ready)
  await expect
    .poll(() =>
      page.evaluate(async (url) => Boolean(navigator.serviceWorker.controller && (await caches.match(url))), passUrl),
    )
    .toBe(true)

  await page.reload()
  const turnOn = page.getByRole('button', { name: 'Turn on notifications' })
  const turnOff = page.getByRole('button', { name: 'Turn off notifications' })
  await expect(turnOn).toBeVisible()
  await expect(turnOff).toBeHidden()
  await turnOn.click()
  await expect(page.locator('#pass-push-status')).toHaveText('Notifications are on.')
  await expect(turnOff).toBeVisible()
  await expect(turnOn).toBeHidden()
  expect(await sql(`select endpoint from push_subscriptions where pass_id = $1`, [passId])).toEqual([
    { endpoint: subscription.endpoint },
  ])
  expect(errors).toEqual([])

  // A stamp (as the owner's scan page records it), then a reload: the new count, not the kept copy.
  await sql(`update passes set stamps = stamps + 2 where id = $1`, [passId])
  await page.reload()
  await expect(page.getByText('2 of 6 stamps', { exact: true })).toBeVisible()
  await expect(turnOff).toBeVisible()
  await expect(page.getByText(/^Offline/)).toHaveCount(0)

  await context.setOffline(true)
  await page.reload()
  await expect(page.getByText('2 of 6 stamps', { exact: true })).toBeVisible()
  await expect(page.getByText(/^Offline: last updated \S/)).toBeVisible()
  await context.setOffline(false)
  expect(errors).toEqual([])
})

test('the pass has one h1 and shows exactly the notification button that applies: none without JavaScript', async ({
  page,
  javaScriptEnabled,
}) => {
  const errors = collectErrors(page)
  const owner = await createOwner('holder')
  const card = await createCard(owner.id, { businessName: 'Corner Coffee' })
  await joinCard(page, card.slug)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your Corner Coffee stamp card')
  const turnOn = page.getByRole('button', { name: 'Turn on notifications' })
  const turnOff = page.getByRole('button', { name: 'Turn off notifications' })
  const status = page.locator('#pass-push-status')
  if (javaScriptEnabled) {
    await expect(status).toHaveText('Get a message when you collect a stamp and when there is news.')
    await expect(turnOn).toBeVisible()
    await expect(turnOff).toBeHidden()
  } else {
    await expect(status).toHaveText('Notifications need JavaScript turned on in your browser.')
    await expect(turnOn).toBeHidden()
    await expect(turnOff).toBeHidden()
  }
  expect(errors).toEqual([])
})

test('a holder removes their card after a confirmation; joining again makes a new pass', async ({
  page,
  javaScriptEnabled,
}) => {
  const errors = collectErrors(page)
  const owner = await createOwner('holder')
  const card = await createCard(owner.id, { businessName: 'Corner Coffee', stampsRequired: 8 })
  const passUrl = await joinCard(page, card.slug)
  const passId = passUrl.split('/p/')[1]!
  if (javaScriptEnabled)
    await expect.poll(() => page.evaluate(async (url) => Boolean(await caches.match(url)), passUrl)).toBe(true)

  await page.getByRole('link', { name: 'Remove this card' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Remove this card?')
  await expect(page.getByText('Your 0 of 8 stamps at Corner Coffee will be lost')).toBeVisible()
  await page.getByRole('link', { name: 'Keep my card' }).click()
  await expect(page).toHaveURL(passUrl)
  await page.getByRole('link', { name: 'Remove this card' }).click()
  await page.getByRole('button', { name: 'Remove my card' }).click()

  await expect(page).toHaveURL(`/c/${card.slug}`)
  await expect(page.getByText('Your card was removed')).toBeVisible()
  expect(await sql(`select 1 from passes where id = $1`, [passId])).toEqual([])
  if (javaScriptEnabled) {
    // Nothing of it is left on the device: no worker, no offline copy.
    const left = () =>
      page.evaluate(
        async (scope) => ({
          workers: (await navigator.serviceWorker.getRegistrations()).filter(
            (registration) => new URL(registration.scope).pathname === scope,
          ).length,
          copy: await caches.has(`stampwise-pass-v1:${scope}`),
        }),
        `/p/${passId}`,
      )
    await expect.poll(left).toEqual({ workers: 0, copy: false })
  }

  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page).toHaveURL(PASS_URL)
  expect(page.url()).not.toBe(passUrl)
  expect(errors).toEqual([])
})

test('someone who has only the pass’s address cannot remove it', async ({ page, browser, javaScriptEnabled }) => {
  // The removal page refuses the stranger with 403.
  expectPageError(failedLoad(403, /^\/c\/remove\//))
  const owner = await createOwner('holder')
  const card = await createCard(owner.id)
  const passUrl = await joinCard(page, card.slug)
  const stranger = await browser.newContext({ javaScriptEnabled })
  const strangerPage = await stranger.newPage()
  await strangerPage.goto(passUrl)
  await strangerPage.getByRole('link', { name: 'Remove this card' }).click()
  await expect(strangerPage.getByRole('alert')).toContainText('Only the browser this card was got in can remove it')
  await expect(strangerPage.getByRole('button', { name: 'Remove my card' })).toHaveCount(0)
  await strangerPage.getByRole('link', { name: 'Back to the card' }).click()
  await expect(strangerPage).toHaveURL(passUrl)
  await stranger.close()
  expect(await sql(`select 1 from passes where id = $1`, [passUrl.split('/p/')[1]])).toHaveLength(1)
})
