import fs from 'node:fs'
import https from 'node:https'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import webpush, { type RequestOptions, type WebPushError } from 'web-push'
import { killChildren, runTs } from '#tests/support/child-process.ts'
import { pushEndpointClient } from '#tests/support/push-endpoint-client.ts'
import {
  PUSH_ENDPOINT_CA,
  startPushEndpoint,
  type PushEndpoint,
  type PushRequest,
  type PushSubscriptionJSON,
} from '#tests/support/push-endpoint.ts'

/*
 * The local push service the delivery tests rely on, checked against the real web-push library: it decrypts what
 * web-push encrypts, refuses what a real service would refuse, and answers as each subscription's behaviour says.
 */

const vapid = webpush.generateVAPIDKeys()
const options = {
  vapidDetails: { subject: 'mailto:test@example.com', publicKey: vapid.publicKey, privateKey: vapid.privateKey },
  TTL: 86400,
  urgency: 'normal',
  topic: 'abc',
} satisfies RequestOptions

let endpoint: PushEndpoint
beforeAll(async () => {
  endpoint = await startPushEndpoint()
})
afterAll(() => endpoint.close())
afterEach(killChildren)

/** Sends and gives back the status, whether the service accepted it or not. */
async function send(subscription: PushSubscriptionJSON, payload: string, extra: RequestOptions = {}) {
  try {
    return (await webpush.sendNotification(subscription, payload, { ...options, ...extra })).statusCode
  } catch (error) {
    if ((error as WebPushError).statusCode === undefined) throw error
    return (error as WebPushError).statusCode
  }
}

/** One request with web-push's encrypted body and headers, and our own Authorization. */
function postWith(subscription: PushSubscriptionJSON, authorization: string | null) {
  const details = webpush.generateRequestDetails(subscription, 'forged', options)
  const headers: Record<string, string | number> = { ...details.headers }
  if (authorization === null) delete headers.Authorization
  else headers.Authorization = authorization
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = https.request(details.endpoint, { method: 'POST', headers }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, text }))
    })
    request.on('error', reject).end(details.body)
  })
}

test('the worker trusts the self-signed certificate through NODE_EXTRA_CA_CERTS', async () => {
  expect(fs.readFileSync(process.env.NODE_EXTRA_CA_CERTS!, 'utf8')).toContain(
    fs.readFileSync(PUSH_ENDPOINT_CA, 'utf8').trim(),
  )
  // No rejectUnauthorized: false — the TLS handshake succeeds only if the certificate is trusted.
  const status = await new Promise<number>((resolve, reject) => {
    https.get(`${endpoint.origin}/`, (response) => resolve(response.resume().statusCode!)).on('error', reject)
  })
  expect(status).toBe(404)
})

test('a message sent by web-push arrives decrypted, with its TTL, urgency, topic and VAPID subject', async () => {
  const subscription = endpoint.createSubscription()
  expect(subscription.endpoint).toMatch(new RegExp(`^${endpoint.origin}/push/[\\w-]+$`))
  expect(Buffer.from(subscription.keys.p256dh, 'base64url')).toHaveLength(65)
  expect(Buffer.from(subscription.keys.auth, 'base64url')).toHaveLength(16)

  expect(await send(subscription, 'hello')).toBe(201)
  expect(endpoint.received().filter((request) => request.endpoint === subscription.endpoint)).toEqual([
    expect.objectContaining({
      status: 201,
      payload: 'hello',
      ttl: 86400,
      urgency: 'normal',
      topic: 'abc',
      vapidSubject: 'mailto:test@example.com',
    }),
  ])
  expect(endpoint.deliveriesBySubscription().get(subscription.endpoint)).toBe(1)
})

test('a JWT not signed by k, for another audience, or no Authorization at all is refused', async () => {
  const subscription = endpoint.createSubscription()
  const other = webpush.generateVAPIDKeys()
  const { subject } = options.vapidDetails
  // Signed with our private key but presenting another public key as k.
  const forged = webpush.getVapidHeaders(endpoint.origin, subject, other.publicKey, vapid.privateKey, 'aes128gcm')
  const elsewhere = 'https://push.example.com'
  const wrongAudience = webpush.getVapidHeaders(elsewhere, subject, vapid.publicKey, vapid.privateKey, 'aes128gcm')

  expect(await postWith(subscription, forged.Authorization)).toMatchObject({ status: 403, text: /signature/ })
  expect(await postWith(subscription, wrongAudience.Authorization)).toMatchObject({ status: 403, text: /aud/ })
  expect((await postWith(subscription, null)).status).toBe(401)
  const requests = endpoint.requests().filter((request) => request.endpoint === subscription.endpoint)
  expect(requests.map((request) => request.status)).toEqual([403, 403, 401])
  expect(endpoint.deliveriesBySubscription().has(subscription.endpoint)).toBe(false)
})

test("'gone' answers 410, a failing subscription 503 twice then 201, an unknown one 404", async () => {
  const gone = endpoint.createSubscription('gone')
  expect(await send(gone, 'a')).toBe(410)
  expect(await send(gone, 'b')).toBe(410)

  const flaky = endpoint.createSubscription({ fail: 2, status: 503, retryAfter: 7 })
  const retryAfter: (string | undefined)[] = []
  for (const expected of [503, 503, 201]) {
    try {
      expect((await webpush.sendNotification(flaky, 'retry me', options)).statusCode).toBe(expected)
    } catch (error) {
      expect((error as WebPushError).statusCode).toBe(expected)
      retryAfter.push((error as WebPushError).headers['retry-after'])
    }
  }
  expect(retryAfter).toEqual(['7', '7'])
  expect(
    endpoint
      .requests()
      .filter((request) => request.endpoint === flaky.endpoint)
      .map((r) => r.payload),
  ).toEqual(['retry me', 'retry me', 'retry me'])
  expect(endpoint.deliveriesBySubscription().get(flaky.endpoint)).toBe(1)

  const unknown = { ...endpoint.createSubscription(), endpoint: `${endpoint.origin}/push/no-such-id` }
  expect(await send(unknown, 'c')).toBe(404)

  endpoint.setBehaviour(gone.endpoint, 'ok')
  expect(await send(gone, 'back')).toBe(201)
})

test("'hang' leaves the first request unanswered (the sender times out), later ones get 201", async () => {
  const hanging = endpoint.createSubscription('hang')
  await expect(webpush.sendNotification(hanging, 'one', { ...options, timeout: 300 })).rejects.toThrow(/timeout/i)
  expect(await send(hanging, 'two')).toBe(201)
  const toHanging = (requests: readonly PushRequest[]) =>
    requests.filter((request) => request.endpoint === hanging.endpoint)
  await endpoint.waitFor((requests) => toHanging(requests).length === 2, 1000)
  expect(toHanging(endpoint.requests()).map((request) => request.status)).toEqual([null, 201])
})

describe('as its own process', () => {
  test('the control API creates subscriptions and reports what was delivered', async () => {
    const server = runTs('tests/support/push-endpoint-server.ts', { args: ['0', '0'] })
    const ready = await server.waitForLine((line) => line.startsWith('push endpoint ready'))
    const client = pushEndpointClient(ready.split(' control ')[1]!)
    const { origin, host } = await client.health()
    expect(host).toBe(new URL(origin).host)

    const ok = await client.createSubscription()
    const gone = await client.createSubscription('gone')
    expect(ok.endpoint.startsWith(`${origin}/push/`)).toBe(true)
    expect(await send(ok, 'from afar')).toBe(201)
    expect(await send(gone, 'lost')).toBe(410)
    expect((await client.received()).map((request) => request.payload)).toEqual(['from afar'])
    expect((await client.requests([gone.endpoint])).map((request) => request.status)).toEqual([410])

    await client.reset()
    expect(await client.requests()).toEqual([])
    expect(await send(ok, 'after reset')).toBe(404)
  })
})
