import { createCard, createOwner, sql } from '#tests/support/e2e-database.ts'
import { pushEndpointClient } from '#tests/support/push-endpoint-client.ts'
import { expect, expectPageError, failedLoad, test, type BrowserContext, type Page } from '#tests/support/test.ts'

/*
 * The holder's side of push messages (issue #6), with JavaScript (service workers need it). Chromium here cannot
 * subscribe for real: its push service is Google's, unreachable. So the subscription call is made with a key pair
 * from our own push service (tests/support/push-endpoint-server.ts), and the service worker is tested through the
 * DevTools protocol: ServiceWorker.deliverPushMessage hands it a push as the browser would.
 */
const push = pushEndpointClient(process.env.E2E_PUSH_CONTROL_URL!)
const PASS_URL = /\/p\/([0-9a-f-]{36})$/

test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, 'service workers and push need JavaScript')

async function joinCard(page: Page, slug: string) {
  await page.goto(`/c/${slug}`)
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page).toHaveURL(PASS_URL)
  return PASS_URL.exec(page.url())![1]!
}

/** The id DevTools gives the pass's service worker registration, once it is active. */
async function registrationId(context: BrowserContext, page: Page, scope: string) {
  const cdp = await context.newCDPSession(page)
  const ids = new Map<string, string>()
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
    for (const registration of registrations)
      if (!registration.isDeleted) ids.set(registration.scopeURL, registration.registrationId)
  })
  await cdp.send('ServiceWorker.enable')
  await page.evaluate(() => navigator.serviceWorker.ready)
  await expect.poll(() => ids.get(scope)).toBeTruthy()
  return { cdp, id: ids.get(scope)! }
}

test('the pass saves and removes a subscription; bad ones are refused with the reason', async ({ page }) => {
  expectPageError(failedLoad(400, /^\/p\/[0-9a-f-]{36}\/push-subscription$/))
  const owner = await createOwner('push-holder')
  const card = await createCard(owner.id)
  const passId = await joinCard(page, card.slug)
  await expect(page.getByRole('heading', { name: 'Notifications' })).toBeVisible()
  await expect(page.getByRole('button', { name: 'Turn on notifications' })).toBeVisible()

  const subscription = await push.createSubscription()
  const call = (method: string, body: unknown) =>
    page.evaluate(
      async ({ method, body, passId }) => {
        const response = await fetch(`/p/${passId}/push-subscription`, {
          method,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
        return { status: response.status, json: await response.json() }
      },
      { method, body, passId },
    )
  expect(await call('POST', subscription)).toMatchObject({ status: 201, json: { status: 'success', subscribed: true } })
  // The same endpoint again (a browser that renewed its keys) replaces it: still one row.
  expect(await call('POST', subscription)).toMatchObject({ status: 200 })
  expect(await sql(`select 1 from push_subscriptions where pass_id = $1`, [passId])).toHaveLength(1)

  const refused = await call('POST', { ...subscription, endpoint: 'https://attacker.example/collect' })
  expect(refused).toMatchObject({
    status: 400,
    json: { status: 'error', message: 'The endpoint is not on a known push service' },
  })
  expect(
    await call('POST', { endpoint: subscription.endpoint, keys: { p256dh: 'short', auth: subscription.keys.auth } }),
  ).toMatchObject({
    status: 400,
    json: { errors: { keys: ['keys.p256dh must be a P-256 public key: 65 bytes, base64url'] } },
  })

  expect(await call('DELETE', { endpoint: subscription.endpoint })).toMatchObject({
    status: 200,
    json: { subscribed: false },
  })
  expect(await sql(`select 1 from push_subscriptions where pass_id = $1`, [passId])).toHaveLength(0)
})

test('the service worker shows each push as a notification with title, body and icon, and a click opens its link', async ({
  page,
  context,
  baseURL,
}) => {
  await context.grantPermissions(['notifications'], { origin: baseURL })
  const owner = await createOwner('push-holder')
  const card = await createCard(owner.id, { businessName: 'Corner Coffee' })
  const passId = await joinCard(page, card.slug)
  const { cdp, id } = await registrationId(context, page, page.url())

  const message = {
    id: crypto.randomUUID(),
    title: 'Happy hour',
    body: 'Two coffees for one until 6 pm',
    url: `${baseURL}/about`,
    icon: `${baseURL}/p/${passId}/icons/192-x.png`,
  }
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: baseURL!,
    registrationId: id,
    data: JSON.stringify(message),
  })
  const shown = () =>
    page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration(location.pathname)
      return (await registration!.getNotifications()).map(({ title, body, icon, tag, data }) => ({
        title,
        body,
        icon,
        tag,
        data,
      }))
    })
  await expect.poll(shown).toEqual([
    {
      title: 'Happy hour',
      body: 'Two coffees for one until 6 pm',
      icon: message.icon,
      tag: message.id,
      data: { url: message.url },
    },
  ])

  // The same message again (a retry after a crash): the tag keeps it one notification.
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: baseURL!,
    registrationId: id,
    data: JSON.stringify(message),
  })
  await page.waitForTimeout(300)
  expect(await shown()).toHaveLength(1)

  // A click. DevTools cannot click a system notification, and Chromium opens windows only for a real click, so the
  // worker gets the click event with openWindow recorded instead of performed: it must ask for the message's link.
  const [worker] = context.serviceWorkers().filter((candidate) => candidate.url().endsWith('/pass-sw.js'))
  const opened = await worker!.evaluate(async () => {
    // The worker's global scope (the DOM typings this file is checked with do not describe it).
    type Scope = {
      opened?: string
      clients: { openWindow: (url: string) => Promise<null> }
      registration: { getNotifications: () => Promise<object[]> }
      dispatchEvent: (event: Event) => boolean
      NotificationEvent: new (type: string, init: { notification: object }) => Event
    }
    const scope = globalThis as unknown as Scope
    scope.clients.openWindow = async (url) => {
      scope.opened = String(url)
      return null
    }
    const [notification] = await scope.registration.getNotifications()
    scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification: notification! }))
    await new Promise((resolve) => setTimeout(resolve, 100))
    return { opened: scope.opened, left: (await scope.registration.getNotifications()).length }
  })
  expect(opened).toEqual({ opened: message.url, left: 0 })
})
