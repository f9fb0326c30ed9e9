import crypto from 'node:crypto'
import { SignJWT } from 'jose'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { killChildren, runTs } from './child-process.ts'
import { freePort } from './free-port.ts'
import { WALLET_SCOPE } from './google-oauth-grant.ts'
import { makeGoogleServiceAccount } from './google-service-account.ts'
import { startGoogleWalletFake, type GoogleWalletFake } from './google-wallet-fake.ts'

// The fake against real fetch: a client signs its assertion as the app does, and reads the answers Google would give.
const account = makeGoogleServiceAccount()
const CLASS_ID = `${account.issuerId}.card-c1`
const OBJECT_ID = `${account.issuerId}.pass-p1`
const HOUR_MS = 60 * 60 * 1000
let clock = Date.parse('2026-01-01T00:00:00Z')
let fake: GoogleWalletFake

beforeAll(async () => {
  fake = await startGoogleWalletFake({
    issuerId: account.issuerId,
    clientEmail: account.clientEmail,
    publicKeyPem: account.publicKeyPem,
    now: () => clock,
  })
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.reset()
  clock = Date.parse('2026-01-01T00:00:00Z')
})

type Claims = { iss?: string; aud?: string; scope?: string; iat?: number; exp?: number }

async function assertion(claims: Claims = {}, key: crypto.KeyObject | string = account.privateKeyPem) {
  const iat = Math.floor(clock / 1000)
  const payload = { iss: account.clientEmail, aud: fake.tokenUri, scope: WALLET_SCOPE, iat, exp: iat + 3600, ...claims }
  const privateKey = typeof key === 'string' ? crypto.createPrivateKey(key) : key
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'JWT' }).sign(privateKey)
}

function requestToken(signed: string) {
  return fetch(fake.tokenUri, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: signed }),
  })
}

async function accessToken() {
  const response = await requestToken(await assertion())
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

async function api(method: string, path: string, body?: unknown, token?: string | null) {
  const bearer = token === undefined ? await accessToken() : token
  const response = await fetch(`${fake.origin}/walletobjects/v1/${path}`, {
    method,
    headers: {
      ...(bearer === null ? {} : { Authorization: `Bearer ${bearer}` }),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, json: (text ? JSON.parse(text) : undefined) as Json }
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

const loyaltyClass = {
  id: CLASS_ID,
  issuerName: 'Café Rosa',
  programName: 'Coffee card',
  programLogo: { sourceUri: { uri: 'http://127.0.0.1:4173/cards/c1/logo.png' } },
  reviewStatus: 'UNDER_REVIEW',
  hexBackgroundColor: '#7a3e1d',
}
const loyaltyObject = {
  id: OBJECT_ID,
  classId: CLASS_ID,
  state: 'ACTIVE',
  loyaltyPoints: { label: 'Stamps', balance: { string: '1 of 10' } },
  barcode: { type: 'QR_CODE', value: 'ABC123', alternateText: 'ABC123' },
  linksModuleData: { uris: [{ uri: 'http://127.0.0.1:4173/p/p1', description: 'Your card' }] },
}

async function insertBoth() {
  expect((await api('POST', 'loyaltyClass', loyaltyClass)).status).toBe(200)
  expect((await api('POST', 'loyaltyObject', loyaltyObject)).status).toBe(200)
}

const objectPath = `loyaltyObject/${encodeURIComponent(OBJECT_ID)}`

describe('token grant', () => {
  test('grants a bearer token for a good assertion', async () => {
    const response = await requestToken(await assertion())
    expect(response.status).toBe(200)
    const body = (await response.json()) as Json
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 })
    expect(body.access_token).toMatch(/^ya29\./)
    expect(fake.tokenRequests()).toBe(1)
    expect(fake.violations()).toEqual([])
  })

  test('refuses an assertion signed by another key, for another audience, or without the Wallet scope', async () => {
    const otherKey = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    const cases: [Promise<string>, string][] = [
      [assertion({}, otherKey), 'invalid_grant'],
      [assertion({ aud: 'https://oauth2.googleapis.com/token' }), 'invalid_grant'],
      [assertion({ scope: 'https://www.googleapis.com/auth/cloud-platform' }), 'invalid_scope'],
      [assertion({ exp: Math.floor(clock / 1000) + 7200 }), 'invalid_grant'],
      [assertion({ iat: Math.floor(clock / 1000) - 7200, exp: Math.floor(clock / 1000) - 3600 }), 'invalid_grant'],
    ]
    for (const [signed, error] of cases) {
      const response = await requestToken(await signed)
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ error })
    }
    expect(fake.tokenRequests()).toBe(0)
    expect(fake.violations()).toHaveLength(cases.length)
    expect(fake.violations()[0]).toContain('Invalid JWT Signature.')
    expect(fake.requests()).toEqual([])
  })
})

describe('bearer token', () => {
  test('a call without a token or with an unknown one is refused and is a violation', async () => {
    for (const token of [null, 'ya29.not-granted']) {
      const { status, json, headers } = await api('GET', objectPath, undefined, token)
      expect(status).toBe(401)
      expect(json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' })
      expect(headers.get('www-authenticate')).toContain('Bearer')
    }
    expect(fake.violations()).toHaveLength(2)
  })

  test('an expired token is refused without a violation: the cue to ask for a new one', async () => {
    fake.setTokenLifetime(60)
    const token = await accessToken()
    expect((await api('GET', objectPath, undefined, token)).status).toBe(404)
    clock += 61_000
    expect((await api('GET', objectPath, undefined, token)).status).toBe(401)
    expect(fake.requests().map((request) => request.status)).toEqual([404, 401])
    expect(fake.violations()).toEqual([])
  })
})

describe('classes and objects', () => {
  test('insert, insert again (409), get, patch and an unknown id (404)', async () => {
    const inserted = await api('POST', 'loyaltyClass', loyaltyClass)
    expect(inserted).toMatchObject({ status: 200, json: { ...loyaltyClass, kind: 'walletobjects#loyaltyClass' } })
    const object = await api('POST', 'loyaltyObject', loyaltyObject)
    expect(object.json).toMatchObject({ ...loyaltyObject, kind: 'walletobjects#loyaltyObject' })
    expect(object.json.classReference).toMatchObject({ id: CLASS_ID })

    const again = await api('POST', 'loyaltyObject', loyaltyObject)
    expect(again).toMatchObject({ status: 409, json: { error: { code: 409, status: 'ALREADY_EXISTS' } } })
    expect(again.json.error.message).toBe('Resource already exists')

    const patched = await api('PATCH', objectPath, {
      loyaltyPoints: { label: 'Stamps', balance: { string: '2 of 10' } },
      linksModuleData: { uris: [] },
    })
    expect(patched.status).toBe(200)
    expect(fake.getObject(OBJECT_ID)).toMatchObject({
      state: 'ACTIVE',
      barcode: loyaltyObject.barcode,
      loyaltyPoints: { balance: { string: '2 of 10' } },
      linksModuleData: { uris: [] },
    })
    expect((await api('GET', objectPath)).json.loyaltyPoints.balance).toEqual({ string: '2 of 10' })

    const unknown = await api('GET', `loyaltyObject/${account.issuerId}.pass-nobody`)
    expect(unknown).toMatchObject({ status: 404, json: { error: { code: 404, status: 'NOT_FOUND' } } })
    expect((await api('PATCH', `loyaltyClass/${account.issuerId}.card-none`, { programName: 'x' })).status).toBe(404)
    expect(fake.objectIds()).toEqual([OBJECT_ID])
    expect(fake.requests().map((request) => `${request.method} ${request.status}`)).toEqual([
      'POST 200',
      'POST 200',
      'POST 409',
      'PATCH 200',
      'GET 200',
      'GET 404',
      'PATCH 404',
    ])
    expect(fake.violations()).toEqual([])
  })

  test('PUT replaces the whole resource and keeps the id of the path', async () => {
    await insertBoth()
    const { id: _id, ...rest } = loyaltyObject
    expect((await api('PUT', objectPath, { ...rest, state: 'INACTIVE', barcode: undefined })).status).toBe(200)
    const stored = fake.getObject(OBJECT_ID)
    expect(stored).toMatchObject({ id: OBJECT_ID, state: 'INACTIVE' })
    expect(stored?.barcode).toBeUndefined()
    expect(fake.violations()).toEqual([])
  })

  test('refuses an insert without its required fields, an id outside the issuer, and an unknown class', async () => {
    const { programLogo: _logo, ...noLogo } = loyaltyClass
    expect((await api('POST', 'loyaltyClass', noLogo)).status).toBe(400)
    expect((await api('POST', 'loyaltyClass', { ...loyaltyClass, reviewStatus: 'APPROVED' })).status).toBe(400)
    expect((await api('POST', 'loyaltyClass', { ...loyaltyClass, id: '1234.card-c1' })).status).toBe(400)
    expect((await api('POST', 'loyaltyClass', { ...loyaltyClass, id: `${account.issuerId}.card c1` })).status).toBe(400)
    const orphan = await api('POST', 'loyaltyObject', loyaltyObject)
    expect(orphan).toMatchObject({ status: 404, json: { error: { status: 'NOT_FOUND' } } })
    expect((await api('POST', 'loyaltyClass', loyaltyClass)).status).toBe(200)
    const { state: _state, ...noState } = loyaltyObject
    const missing = await api('POST', 'loyaltyObject', noState)
    expect(missing).toMatchObject({ status: 400, json: { error: { code: 400, status: 'INVALID_ARGUMENT' } } })
    expect(fake.violations()).toHaveLength(6)
    expect(fake.objectIds()).toEqual([])
  })

  test('a method or address the fake does not serve is a 404 and a violation', async () => {
    expect((await api('DELETE', objectPath)).status).toBe(404)
    expect((await api('GET', 'genericObject')).status).toBe(404)
    expect(fake.violations()).toEqual([
      `DELETE /walletobjects/v1/loyaltyObject/${OBJECT_ID}: no such endpoint in the fake`,
      'GET /walletobjects/v1/genericObject: no such endpoint in the fake',
    ])
  })

  test('deleteObject: later calls for it answer 404', async () => {
    await insertBoth()
    fake.deleteObject(OBJECT_ID)
    expect((await api('GET', objectPath)).status).toBe(404)
    expect((await api('PATCH', objectPath, { state: 'INACTIVE' })).status).toBe(404)
    expect((await api('POST', `${objectPath}/addMessage`, { message: { header: 'h', body: 'b' } })).status).toBe(404)
    expect(fake.violations()).toEqual([])
  })
})

describe('request bodies checked against Google’s typings', () => {
  test('an unknown top-level field is refused with Google’s wording', async () => {
    const { status, json } = await api('POST', 'loyaltyClass', { ...loyaltyClass, programNmae: 'typo' })
    expect(status).toBe(400)
    expect(json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' })
    expect(json.error.message).toBe(
      `Invalid JSON payload received. Unknown name "programNmae" at 'resource': Cannot find field.`,
    )
    expect(fake.violations()).toHaveLength(1)
    expect(fake.getClass(CLASS_ID)).toBeUndefined()
  })

  test('a misspelt nested field (loyaltyPoints.balance.strin) is refused', async () => {
    await insertBoth()
    const { status, json } = await api('PATCH', objectPath, { loyaltyPoints: { balance: { strin: '3 of 10' } } })
    expect(status).toBe(400)
    expect(json.error.message).toBe(
      `Invalid JSON payload received. Unknown name "strin" at 'resource.loyalty_points.balance': Cannot find field.`,
    )
    expect(fake.getObject(OBJECT_ID)?.loyaltyPoints?.balance).toEqual({ string: '1 of 10' })
    expect(fake.violations()).toEqual([expect.stringContaining('"strin"')])
  })

  test('a field of the wrong JSON type, an unknown enum value and a misspelt message field are refused', async () => {
    await insertBoth()
    const bodies = [
      { loyaltyPoints: { label: { en: 'Stamps' } } },
      { linksModuleData: { uris: { uri: 'http://x' } } },
      { state: 'ON' },
      { hasUsers: 'yes' },
    ]
    for (const body of bodies) expect((await api('PATCH', objectPath, body)).status).toBe(400)
    const message = await api('POST', `${objectPath}/addMessage`, { message: { header: 'h', bdy: 'b' } })
    expect(message.status).toBe(400)
    expect(message.json.error.message).toContain(`Unknown name "bdy" at 'resource.message'`)
    expect(fake.violations()).toHaveLength(bodies.length + 1)
  })

  test('enum aliases are taken and stored by their canonical name; a body over 1 MB or not JSON is refused', async () => {
    await api('POST', 'loyaltyClass', loyaltyClass)
    await api('POST', 'loyaltyObject', { ...loyaltyObject, state: 'active', barcode: { type: 'qrCode', value: 'A' } })
    expect(fake.getObject(OBJECT_ID)).toMatchObject({ state: 'ACTIVE', barcode: { type: 'QR_CODE' } })
    expect(fake.violations()).toEqual([])
    const huge = { textModulesData: [{ header: 'x', body: 'y'.repeat(1024 * 1024) }] }
    expect((await api('PATCH', objectPath, huge)).status).toBe(413)
    expect((await api('PATCH', objectPath, '{"state": ')).status).toBe(400)
    expect(fake.violations()).toHaveLength(2)
  })
})

describe('notifications', () => {
  const addMessage = (messageType: string) =>
    api('POST', `${objectPath}/addMessage`, { message: { header: 'News', body: 'Double stamps today', messageType } })

  test('at most 3 per object in 24 hours; beyond that a notifying message is refused (403 quotaExceeded)', async () => {
    await insertBoth()
    const times: number[] = []
    for (let n = 0; n < 3; n++) {
      times.push(clock)
      const { status, json } = await addMessage('TEXT_AND_NOTIFY')
      expect(status).toBe(200)
      expect(json.resource.messages).toHaveLength(n + 1)
      clock += HOUR_MS
    }
    const refused = await addMessage('TEXT_AND_NOTIFY')
    expect(refused.status).toBe(403)
    expect(refused.json.error.errors).toEqual([expect.objectContaining({ reason: 'quotaExceeded' })])
    expect(fake.notifications(OBJECT_ID)).toEqual(times)
    expect(fake.throttled(OBJECT_ID)).toBe(1)
    expect(fake.getObject(OBJECT_ID)?.messages).toHaveLength(3)

    // TEXT never notifies; an update asking for it past the limit is applied without notifying.
    expect((await addMessage('TEXT')).status).toBe(200)
    expect(fake.throttled(OBJECT_ID)).toBe(1)
    const patch = { loyaltyPoints: { balance: { string: '10 of 10' } }, notifyPreference: 'NOTIFY_ON_UPDATE' }
    expect((await api('PATCH', objectPath, patch)).status).toBe(200)
    expect(fake.throttled(OBJECT_ID)).toBe(2)
    expect(fake.getObject(OBJECT_ID)?.notifyPreference).toBeUndefined()
    expect(fake.getObject(OBJECT_ID)?.loyaltyPoints?.balance).toEqual({ string: '10 of 10' })

    // 24 hours after the first, one notification is free again.
    clock = times[0]! + 24 * HOUR_MS
    expect((await addMessage('TEXT_AND_NOTIFY')).status).toBe(200)
    expect(fake.notifications(OBJECT_ID)).toEqual([...times, clock])
    expect((await addMessage('TEXT_AND_NOTIFY')).status).toBe(403)
    expect(fake.throttled(OBJECT_ID)).toBe(3)
    expect(fake.violations()).toEqual([])
  })

  test('an object holds at most 10 messages: an 11th is refused until the list is patched shorter', async () => {
    await insertBoth()
    for (let n = 0; n < 10; n++) expect((await addMessage('TEXT')).status).toBe(200)
    const eleventh = await addMessage('TEXT')
    expect(eleventh.status).toBe(400)
    expect(fake.violations()).toEqual([expect.stringMatching(/more than 10 messages/)])
    expect(fake.getObject(OBJECT_ID)?.messages).toHaveLength(10)
    const kept = fake
      .getObject(OBJECT_ID)!
      .messages!.slice(1)
      .map(({ header, body, messageType }) => ({
        header,
        body,
        messageType,
      }))
    expect((await api('PATCH', objectPath, { messages: kept })).status).toBe(200)
    expect((await addMessage('TEXT')).status).toBe(200)
    expect(fake.getObject(OBJECT_ID)?.messages).toHaveLength(10)
    const tooMany = [...kept, ...kept]
    expect((await api('PATCH', objectPath, { messages: tooMany })).status).toBe(400)
    expect(fake.violations()).toHaveLength(2)
  })
})

describe('failNext', () => {
  test('429 with Retry-After and 503 with Google’s error body, only for matching requests', async () => {
    await insertBoth()
    fake.failNext(1, 429)
    fake.failNext(1, 503, (method) => method === 'PATCH')
    const token = await accessToken()
    const limited = await api('GET', objectPath, undefined, token)
    expect(limited).toMatchObject({ status: 429, json: { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } } })
    expect(limited.headers.get('retry-after')).toBe('1')
    expect((await api('GET', objectPath, undefined, token)).status).toBe(200)
    const unavailable = await api('PATCH', objectPath, { state: 'INACTIVE' }, token)
    expect(unavailable).toMatchObject({ status: 503, json: { error: { code: 503, status: 'UNAVAILABLE' } } })
    expect(fake.getObject(OBJECT_ID)?.state).toBe('ACTIVE')
    expect((await api('PATCH', objectPath, { state: 'INACTIVE' }, token)).status).toBe(200)
    expect(fake.requests().map((request) => request.status)).toEqual([200, 200, 429, 200, 503, 200])
    expect(fake.violations()).toEqual([])
  })

  test('a failed request that also breaks a rule is still a violation', async () => {
    fake.failNext(1, 503)
    expect((await api('POST', 'loyaltyClass', { ...loyaltyClass, colour: 'red' })).status).toBe(503)
    expect(fake.violations()).toEqual([expect.stringContaining('Unknown name "colour"')])
  })

  test('hang never answers; reset drops the connection; both are recorded with status 0', async () => {
    await insertBoth()
    const token = await accessToken()
    fake.failNext(1, 'hang')
    await expect(
      fetch(`${fake.origin}/walletobjects/v1/${objectPath}`, {
        headers: { Authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow(/abort|timeout/i)
    fake.failNext(1, 'reset')
    await expect(api('GET', objectPath, undefined, token)).rejects.toThrow(/fetch failed/)
    expect(
      fake
        .requests()
        .slice(-2)
        .map((request) => request.status),
    ).toEqual([0, 0])
    expect((await api('GET', objectPath, undefined, token)).status).toBe(200)
  })

  test('close() ends a hung request too', async () => {
    const own = await startGoogleWalletFake({
      issuerId: account.issuerId,
      clientEmail: account.clientEmail,
      publicKeyPem: account.publicKeyPem,
    })
    own.failNext(1, 'hang')
    const hung = fetch(`${own.origin}/walletobjects/v1/${objectPath}`).then(
      (response) => response.status,
      () => 'dropped',
    )
    while (own.requests().length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    await own.close()
    expect(await hung).toBe('dropped')
  })
})

describe('google-wallet-fake-server.ts', () => {
  afterEach(() => killChildren())

  test('trusts the account of its GOOGLE_WALLET_* settings and answers /healthz and the control API', async () => {
    const port = await freePort()
    const origin = `http://127.0.0.1:${port}`
    const child = runTs('tests/support/google-wallet-fake-server.ts', {
      env: { GOOGLE_WALLET_FAKE_PORT: String(port), ...account.env(origin) },
    })
    await child.waitForLine((line) => line === `google wallet fake ready ${origin}`)
    expect(await (await fetch(`${origin}/healthz`)).text()).toBe('ok')
    const iat = Math.floor(Date.now() / 1000)
    const signed = await new SignJWT({ iss: account.clientEmail, aud: `${origin}/token`, scope: WALLET_SCOPE })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(crypto.createPrivateKey(account.privateKeyPem))
    const grant = await fetch(`${origin}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: signed }),
    })
    expect(grant.status).toBe(200)
    const token = ((await grant.json()) as Json).access_token as string
    const insert = await fetch(`${origin}/walletobjects/v1/loyaltyClass`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(loyaltyClass),
    })
    expect(insert.status).toBe(200)
    expect(await (await fetch(`${origin}/fake/classes/${encodeURIComponent(CLASS_ID)}`)).json()).toMatchObject({
      programName: 'Coffee card',
    })
    expect(await (await fetch(`${origin}/fake/violations`)).json()).toEqual([])
    await fetch(`${origin}/fake/reset`, { method: 'POST' })
    expect((await fetch(`${origin}/fake/classes/${encodeURIComponent(CLASS_ID)}`)).status).toBe(404)
    child.process.kill('SIGTERM')
    expect(await child.exited).toMatchObject({ code: 0 })
  })
})
