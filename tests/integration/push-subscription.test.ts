import crypto from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { ENDPOINT_NOT_NORMAL, ENDPOINT_UNKNOWN_SERVICE } from '#app/utils/push-subscription.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/*
 * The pass page's subscription call, POST/DELETE/GET /p/{passId}/push-subscription (docs/product/push-messages.md):
 * unique per (pass, endpoint), renewed keys replace the old ones, and only known push services (or PUSH_ALLOWED_HOSTS)
 * pass.
 */
process.env.PUSH_ALLOWED_HOSTS = 'localhost:4433'
resetEnvForTests()

let server: Awaited<ReturnType<typeof startTestServer>>
let passId: string
let otherPassId: string

beforeAll(async () => {
  server = await startTestServer()
  const owner = await createOwner()
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title) values (:userId, :slug, 'active', 'Coffee card') returning id`,
    { userId: owner.id, slug: `sub-${crypto.randomBytes(5).toString('hex')}` },
  )
  const passes = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) values (:cardId, 'ABCDEFGH'), (:cardId, 'ABCDEFGJ') returning id`,
    { cardId: card!.id },
  )
  ;[passId, otherPassId] = passes.map((pass) => pass.id) as [string, string]
})

afterAll(async () => {
  await server?.close()
})

const keys = () => ({
  p256dh: crypto.createECDH('prime256v1').generateKeys().toString('base64url'),
  auth: crypto.randomBytes(16).toString('base64url'),
})
const call = (method: string, id: string, body?: unknown, query = '') =>
  server.fetch(`/p/${id}/push-subscription${query}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
const rows = (id: string) =>
  sql<{ endpoint: string; p256dh: string }>(
    `select endpoint, p256dh from push_subscriptions where pass_id = :id order by endpoint`,
    { id },
  )

test('save, renew, read back and remove; one device holding two passes has one row per pass', async () => {
  const endpoint = 'https://fcm.googleapis.com/fcm/send/device-1'
  const first = keys()
  expect((await call('POST', passId, { endpoint, keys: first, expirationTime: null })).status).toBe(201)
  const renewed = keys()
  const again = await call('POST', passId, { endpoint, keys: renewed })
  expect(again.status).toBe(200)
  expect(await rows(passId)).toEqual([{ endpoint, p256dh: renewed.p256dh }])
  expect((await call('POST', otherPassId, { endpoint, keys: renewed })).status).toBe(201)
  expect(await rows(otherPassId)).toHaveLength(1)

  const query = `?endpoint=${encodeURIComponent(endpoint)}`
  const state = await (await call('GET', passId, undefined, query)).json()
  expect(state).toMatchObject({ status: 'success', subscribed: true, publicKey: expect.stringMatching(/^[\w-]{87}$/) })
  expect((await call('DELETE', passId, { endpoint })).status).toBe(200)
  expect(await rows(passId)).toEqual([])
  expect(await (await call('GET', passId, undefined, query)).json()).toMatchObject({ subscribed: false })
})

test('bad input: 400 with the reason; unknown pass 404; other methods 405; a cross-site POST 403', async () => {
  const bad = await call('POST', passId, { endpoint: 'https://169.254.169.254/latest/meta-data', keys: keys() })
  expect(bad.status).toBe(400)
  expect(await bad.json()).toMatchObject({
    status: 'error',
    message: ENDPOINT_UNKNOWN_SERVICE,
    errors: { endpoint: [ENDPOINT_UNKNOWN_SERVICE] },
  })
  expect((await call('POST', passId, 'not an object')).status).toBe(400)
  const notJson = await server.fetch(`/p/${passId}/push-subscription`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"endpoint":',
  })
  expect(notJson.status).toBe(400)
  expect((await call('POST', passId, { endpoint: 'https://localhost:4433/push/x', keys: keys() })).status).toBe(201)
  expect(
    (await call('POST', crypto.randomUUID(), { endpoint: 'https://fcm.googleapis.com/fcm/send/x', keys: keys() }))
      .status,
  ).toBe(404)
  expect(
    (await call('POST', 'not-a-pass', { endpoint: 'https://fcm.googleapis.com/fcm/send/x', keys: keys() })).status,
  ).toBe(404)
  expect((await call('GET', crypto.randomUUID())).status).toBe(404)
  expect((await call('DELETE', passId, {})).status).toBe(400)
  expect((await call('PUT', passId, {})).status).toBe(405)
  const crossSite = await server.fetch(`/p/${passId}/push-subscription`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example' },
    body: JSON.stringify({ endpoint: 'https://fcm.googleapis.com/fcm/send/y', keys: keys() }),
  })
  expect(crossSite.status).toBe(403)
})

test('an endpoint that URL parsers read differently is refused with 400 and nothing is stored (issue 14, item 1)', async () => {
  const before = await sql(`select id from push_subscriptions`)
  // WHATWG reads these hosts as *.push.apple.com; the legacy url.parse web-push sent with, as localhost.
  for (const character of ['{', '}', ';', "'", '"', '`']) {
    const endpoint = `https://localhost${character}.push.apple.com/x`
    const response = await call('POST', passId, { endpoint, keys: keys() })
    expect(response.status, endpoint).toBe(400)
    expect(await response.json()).toMatchObject({
      status: 'error',
      message: ENDPOINT_NOT_NORMAL,
      errors: { endpoint: [ENDPOINT_NOT_NORMAL] },
    })
  }
  // Not in the form `new URL()` writes back: upper case, a default port, an escaped character left raw.
  for (const endpoint of [
    'https://WEB.push.apple.com/x',
    'https://web.push.apple.com:443/x',
    'https://web.push.apple.com/a b',
  ]) {
    expect((await call('POST', passId, { endpoint, keys: keys() })).status, endpoint).toBe(400)
  }
  expect(await sql(`select id from push_subscriptions`)).toEqual(before)
})

test('at most 10 subscriptions per pass: the 11th replaces the oldest, a renewed one counts as new', async () => {
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) select card_id, 'CAPTENSX' from passes where id = :passId returning id`,
    { passId },
  )
  const endpoints = Array.from(
    { length: 12 },
    (_, index) => `https://fcm.googleapis.com/fcm/send/phone-${String(index).padStart(2, '0')}`,
  )
  for (const endpoint of endpoints.slice(0, 10))
    expect((await call('POST', pass!.id, { endpoint, keys: keys() })).status).toBe(201)
  // The first phone renews its keys: it is now the most recent, so the second is the oldest.
  expect((await call('POST', pass!.id, { endpoint: endpoints[0], keys: keys() })).status).toBe(200)
  expect((await call('POST', pass!.id, { endpoint: endpoints[10], keys: keys() })).status).toBe(201)
  expect((await rows(pass!.id)).map((row) => row.endpoint)).toEqual([endpoints[0], ...endpoints.slice(2, 11)])
  expect((await call('POST', pass!.id, { endpoint: endpoints[11], keys: keys() })).status).toBe(201)
  expect((await rows(pass!.id)).map((row) => row.endpoint)).toEqual([endpoints[0], ...endpoints.slice(3, 12)])
  // Other passes keep theirs.
  expect(await rows(otherPassId)).not.toEqual([])
})

test("DELETE removes this pass's row only: another pass on the same device keeps its subscription", async () => {
  const endpoint = 'https://fcm.googleapis.com/fcm/send/shared-device'
  expect((await call('POST', passId, { endpoint, keys: keys() })).status).toBe(201)
  expect((await call('POST', otherPassId, { endpoint, keys: keys() })).status).toBe(201)
  expect((await call('DELETE', passId, { endpoint })).status).toBe(200)
  const query = `?endpoint=${encodeURIComponent(endpoint)}`
  expect(await (await call('GET', passId, undefined, query)).json()).toMatchObject({ subscribed: false })
  expect(await (await call('GET', otherPassId, undefined, query)).json()).toMatchObject({ subscribed: true })
  expect(await sql(`select pass_id from push_subscriptions where endpoint = :endpoint`, { endpoint })).toEqual([
    { pass_id: otherPassId },
  ])
})
