import crypto from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { applePassToken } from '#app/services/wallet/apple-pass-token.server.ts'
import { storeVoidedApplePass } from '#models/apple-pass.server.ts'
import { countCardAppleWallet } from '#models/apple-registration.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { makeAppleCerts } from '#tests/support/apple-certs.ts'
import { sql } from '#tests/support/auth-api.ts'
import { encodeBody, hostileBody, rawBodies, describeBody } from '#tests/support/hostile-input.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * Apple's pass web service (docs/product/wallets.md), through HTTP as Wallet on a device calls it: every
 * status code of the protocol, the tags and Last-Modified at one-second resolution, the voided pass, the log and the
 * rate limits. Runs on the embedded database, or the PostgreSQL server with TEST_DATABASE_URL.
 *
 * Each test calls from its own client address (X-Forwarded-For behind TRUST_PROXY=1), so the low limits below
 * (RATE_LIMIT_FACTOR 0.05: 15 registration calls and 3 log posts an hour) meet only the test about them.
 */
const certs = makeAppleCerts()
const PASS_TYPE = certs.passTypeId
Object.assign(process.env, certs.env())
process.env.RATE_LIMIT_FACTOR = '0.05'
resetEnvForTests()

const REGISTRATION_LIMIT = 15
const LOG_LIMIT = 3

const server = useTestServer({ env: { TRUST_PROXY: 1 } })

let clients = 0
const newClient = () => `10.16.${Math.floor(++clients / 250)}.${(clients % 250) + 1}`
const newDevice = () => crypto.randomBytes(16).toString('hex')
const newPushToken = () => crypto.randomBytes(32).toString('hex')

const SHORT_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

async function createPass() {
  const owner = await createOwner()
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
     values (:ownerId, :slug, 'active', 'Coffee card', 'Corner Coffee', 8, 'A free coffee') returning id`,
    { ownerId: owner.id, slug: `card-${crypto.randomBytes(6).toString('hex')}` },
  )
  const shortCode = Array.from(crypto.randomBytes(8), (byte) => SHORT_CODE_ALPHABET[byte % 32]).join('')
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) values (:cardId, :shortCode) returning id`,
    { cardId: card!.id, shortCode },
  )
  return { passId: pass!.id, cardId: card!.id, token: await applePassToken(pass!.id) }
}

const stamp = (passId: string) =>
  sql(`update passes set stamps = stamps + 1 where id = :passId returning id`, { passId })

const registrationPath = (deviceId: string, serial: string, passType = PASS_TYPE) =>
  `/wallet/apple/v1/devices/${deviceId}/registrations/${passType}/${serial}`
const serialsPath = (deviceId: string, since?: string, passType = PASS_TYPE) =>
  `/wallet/apple/v1/devices/${deviceId}/registrations/${passType}${since === undefined ? '' : `?passesUpdatedSince=${since}`}`
const passPath = (serial: string, passType = PASS_TYPE) => `/wallet/apple/v1/passes/${passType}/${serial}`

type Call = { client: string; token?: string; authorization?: string; body?: unknown; headers?: Record<string, string> }

/** One call as Wallet makes it: JSON, `Authorization: ApplePass {token}`, from the given client address. */
function call(method: string, path: string, { client, token, authorization, body, headers = {} }: Call) {
  const sent: Record<string, string> = { 'X-Forwarded-For': client, ...headers }
  if (token !== undefined) sent.Authorization = `ApplePass ${token}`
  if (authorization !== undefined) sent.Authorization = authorization
  if (body !== undefined) sent['Content-Type'] = 'application/json'
  return server.fetch(path, {
    method,
    headers: sent,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
}

async function registrations(passId: string) {
  return sql<{ device_id: string; push_token: string }>(
    `select r.device_id, d.push_token from apple_registrations r join apple_devices d on d.id = r.device_id
     where r.pass_id = :passId order by r.device_id`,
    { passId },
  )
}

async function expectJsonMessage(response: Response, status: number) {
  expect(response.status).toBe(status)
  expect(response.headers.get('Content-Type')).toMatch(/^application\/json/)
  const body = (await response.json()) as { message?: string }
  expect(body.message).toMatch(/\w{2,}/)
  return body
}

describe('registering a device for a pass', () => {
  test('201 the first time, 200 after (the push token updated)', async () => {
    const client = newClient()
    const { passId, token } = await createPass()
    const deviceId = newDevice()
    const first = newPushToken()
    const created = await call('POST', registrationPath(deviceId, passId), {
      client,
      token,
      body: { pushToken: first },
    })
    expect(created.status).toBe(201)
    expect(await registrations(passId)).toEqual([{ device_id: deviceId, push_token: first }])

    const second = newPushToken()
    const again = await call('POST', registrationPath(deviceId, passId), { client, token, body: { pushToken: second } })
    expect(again.status).toBe(200)
    expect(await registrations(passId)).toEqual([{ device_id: deviceId, push_token: second }])
  })

  test('401 without the pass token, with a wrong one, or with another pass’s; nothing is stored', async () => {
    const client = newClient()
    const { passId, token } = await createPass()
    const other = await createPass()
    const path = registrationPath(newDevice(), passId)
    const body = { pushToken: newPushToken() }
    for (const authorization of [
      undefined,
      '',
      `ApplePass ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
      `ApplePass ${other.token}`,
      `Bearer ${token}`,
      `ApplePass  ${token}`,
      `ApplePass ${token}x`,
    ]) {
      const response = await call('POST', path, { client, authorization, body })
      await expectJsonMessage(response, 401)
    }
    expect(await registrations(passId)).toEqual([])
  })

  test('404 for another pass type, even with the right token', async () => {
    const client = newClient()
    const { passId, token } = await createPass()
    const response = await call('POST', registrationPath(newDevice(), passId, 'pass.com.example.other'), {
      client,
      token,
      body: { pushToken: newPushToken() },
    })
    await expectJsonMessage(response, 404)
    expect(await registrations(passId)).toEqual([])
  })

  test('404 for an unknown serial number with its valid-looking token', async () => {
    const client = newClient()
    for (const serial of [crypto.randomUUID(), 'not-a-pass']) {
      const response = await call('POST', registrationPath(newDevice(), serial), {
        client,
        token: await applePassToken(serial),
        body: { pushToken: newPushToken() },
      })
      await expectJsonMessage(response, 404)
    }
  })

  test('400 for a missing or malformed push token, or a body that is not a JSON object', async () => {
    const client = newClient()
    const { passId, token } = await createPass()
    const path = registrationPath(newDevice(), passId)
    for (const body of [
      {},
      { pushToken: '' },
      { pushToken: 'not hex!' },
      { pushToken: 42 },
      '[1]',
      '{"pushToken"',
      '"x"',
    ]) {
      const response = await call('POST', path, { client, token, body })
      await expectJsonMessage(response, 400)
    }
    expect(await registrations(passId)).toEqual([])
  })

  test('400 for a device library identifier Apple never sends', async () => {
    const client = newClient()
    const { passId, token } = await createPass()
    const response = await call('POST', registrationPath('a%20b', passId), {
      client,
      token,
      body: { pushToken: newPushToken() },
    })
    await expectJsonMessage(response, 400)
    expect(await registrations(passId)).toEqual([])
  })

  test('hostile bodies with the right token: never 5xx, and a refused one stores nothing', async () => {
    const { passId, token } = await createPass()
    const counts = async () =>
      (await sql<{ devices: number }>(`select count(*)::int as devices from apple_devices`))[0]!.devices
    const send = async (body: Parameters<typeof encodeBody>[0]) => {
      const { contentType, payload } = encodeBody(body)
      const headers: Record<string, string> = { 'X-Forwarded-For': newClient(), Authorization: `ApplePass ${token}` }
      if (contentType !== null) headers['Content-Type'] = contentType
      const before = await counts()
      const response = await server.fetch(registrationPath(newDevice(), passId), {
        method: 'POST',
        headers,
        body: payload,
      })
      await response.arrayBuffer()
      const what = `${response.status} for ${describeBody(body)}`
      expect(response.status, what).toBeLessThan(500)
      if (response.status >= 400) expect(await counts(), what).toBe(before)
    }
    for (const body of rawBodies()) await send(body)
    await fc.assert(
      fc.asyncProperty(hostileBody({ fields: ['pushToken'], intents: [], base: { pushToken: 'ab12' } }), send),
      { seed: 16, numRuns: 20 },
    )
  })
})

describe('at most 10 devices per pass (docs/product/hardening.md, "Wallet devices")', () => {
  const ownerOf = async (cardId: string) =>
    (await sql<{ user_id: string }>(`select user_id from cards where id = :cardId`, { cardId }))[0]!.user_id
  const register = (client: string, token: string, passId: string, deviceId: string, pushToken = newPushToken()) =>
    call('POST', registrationPath(deviceId, passId), { client, token, body: { pushToken } })

  test('the 11th device replaces the oldest; a stamp pushes 10 devices and reach counts 10', async () => {
    const client = newClient()
    const { passId, cardId, token } = await createPass()
    const devices = Array.from({ length: 11 }, () => newDevice())
    for (const deviceId of devices) expect((await register(client, token, passId, deviceId)).status).toBe(201)
    const kept = (await registrations(passId)).map((row) => row.device_id)
    expect(kept.sort()).toEqual(devices.slice(1).sort())

    const ownerId = await ownerOf(cardId)
    expect(await countCardAppleWallet({ cardId, userId: ownerId })).toEqual({ passes: 1, devices: 10 })
    await stamp(passId)
    const pushes = await sql<{ device_id: string }>(`select device_id from apple_pushes where pass_id = :passId`, {
      passId,
    })
    expect(pushes.map((push) => push.device_id).sort()).toEqual(devices.slice(1).sort())

    // The replaced device comes back: it is the newest now, and the oldest left goes.
    expect((await register(client, token, passId, devices[0]!)).status).toBe(201)
    const after = (await registrations(passId)).map((row) => row.device_id)
    expect(after.sort()).toEqual([devices[0]!, ...devices.slice(2)].sort())
  })

  test('registrations arriving at once still leave 10', async () => {
    const { passId, token } = await createPass()
    const answers = await Promise.all(
      Array.from({ length: 14 }, () => register(newClient(), token, passId, newDevice())),
    )
    expect(answers.map((answer) => answer.status)).toEqual(Array(14).fill(201))
    expect(await registrations(passId)).toHaveLength(10)
  })

  test("a device's push token is changed only through a pass registered to that device", async () => {
    const client = newClient()
    const holder = await createPass()
    const stranger = await createPass()
    const deviceId = newDevice()
    const first = newPushToken()
    expect((await register(client, holder.token, holder.passId, deviceId, first)).status).toBe(201)
    // Another pass's token proves nothing about the device: registered for that pass, the device keeps its token.
    const hijack = newPushToken()
    expect((await register(client, stranger.token, stranger.passId, deviceId, hijack)).status).toBe(201)
    expect(await registrations(holder.passId)).toEqual([{ device_id: deviceId, push_token: first }])
    await stamp(holder.passId)
    expect(await sql(`select push_token from apple_pushes where pass_id = :passId`, { passId: holder.passId })).toEqual(
      [{ push_token: first }],
    )
    // Apple gave the device a new token: it registers a pass it holds again, and the token changes.
    const renewed = newPushToken()
    expect((await register(client, holder.token, holder.passId, deviceId, renewed)).status).toBe(200)
    expect(await registrations(holder.passId)).toEqual([{ device_id: deviceId, push_token: renewed }])
  })
})

describe('the serial numbers updated since a tag', () => {
  test('200 with every pass, 204 at the tag, the stamped pass again after a stamp in the same second', async () => {
    const client = newClient()
    const deviceId = newDevice()
    const passes = [await createPass(), await createPass()]
    for (const { passId, token } of passes) {
      const response = await call('POST', registrationPath(deviceId, passId), {
        client,
        token,
        body: { pushToken: newPushToken() },
      })
      expect(response.status).toBe(201)
    }

    // Both passes last changed before this second, so the tag is their time (a recent pass: the test below).
    await sql(
      `update passes set wallet_modified_at = date_trunc('second', now()) - interval '10 seconds' where id in (:ids)`,
      { ids: passes.map(({ passId }) => passId) },
    )
    await sql(
      `update cards set wallet_modified_at = date_trunc('second', now()) - interval '10 seconds'
       where id in (:ids)`,
      { ids: passes.map(({ cardId }) => cardId) },
    )
    const all = await call('GET', serialsPath(deviceId), { client })
    expect(all.status).toBe(200)
    const listed = (await all.json()) as { serialNumbers: string[]; lastUpdated: string }
    expect(listed.serialNumbers).toEqual(passes.map(({ passId }) => passId).sort())
    expect(listed.lastUpdated).toMatch(/^\d+$/)

    const unchanged = await call('GET', serialsPath(deviceId, listed.lastUpdated), { client })
    expect(unchanged.status).toBe(204)
    expect(await unchanged.text()).toBe('')

    await stamp(passes[0]!.passId)
    const changed = await call('GET', serialsPath(deviceId, listed.lastUpdated), { client })
    expect(changed.status).toBe(200)
    const after = (await changed.json()) as { serialNumbers: string[]; lastUpdated: string }
    expect(after.serialNumbers).toEqual([passes[0]!.passId])
    expect(Number(after.lastUpdated)).toBeGreaterThan(Number(listed.lastUpdated))

    // An undo right after: the tag moves again, within the same second.
    await sql(`update passes set stamps = stamps - 1 where id = :passId`, { passId: passes[0]!.passId })
    const undone = await call('GET', serialsPath(deviceId, after.lastUpdated), { client })
    expect(undone.status).toBe(200)
    expect(((await undone.json()) as { serialNumbers: string[] }).serialNumbers).toEqual([passes[0]!.passId])
  })

  // A change gets max(now, its own time + 1 s): it can land at or before the newest time of the device's other
  // passes when that one is in the current second or ahead of the clock (several changes within one second). So the
  // tag never names the clock's current second or later (listUpdatedApplePasses): the change is past it, and a pass
  // that recent is listed once more (the device then hears 304 for it).
  test("a change to another of the device's passes is listed even when the tag is in this second", async () => {
    const client = newClient()
    const deviceId = newDevice()
    const [older, newer] = [await createPass(), await createPass()]
    for (const { passId, token } of [older!, newer!]) {
      const body = { pushToken: newPushToken() }
      expect((await call('POST', registrationPath(deviceId, passId), { client, token, body })).status).toBe(201)
    }
    // The newer pass changed three times this second (stamp, undo, stamp): its time is two seconds ahead.
    await stamp(newer!.passId)
    await sql(`update passes set stamps = stamps - 1 where id = :passId`, { passId: newer!.passId })
    await stamp(newer!.passId)
    const { lastUpdated } = (await (await call('GET', serialsPath(deviceId), { client })).json()) as {
      lastUpdated: string
    }
    const [clock] = await sql<{ second: number }>(`select extract(epoch from clock_timestamp())::float8 as second`)
    expect(Number(lastUpdated)).toBeLessThan(Math.floor(clock!.second))
    await stamp(older!.passId)
    const changed = await call('GET', serialsPath(deviceId, lastUpdated), { client })
    expect(changed.status).toBe(200)
    expect(((await changed.json()) as { serialNumbers: string[] }).serialNumbers).toContain(older!.passId)
  })

  test('204 for an unknown device, 400 for a malformed tag, 404 for another pass type', async () => {
    const client = newClient()
    expect((await call('GET', serialsPath(newDevice()), { client })).status).toBe(204)
    expect((await call('GET', serialsPath(newDevice(), '1700000000'), { client })).status).toBe(204)
    for (const tag of ['abc', '', '-1', '1.5', '1e9', '9'.repeat(40)]) {
      await expectJsonMessage(await call('GET', serialsPath(newDevice(), tag), { client }), 400)
    }
    await expectJsonMessage(
      await call('GET', serialsPath(newDevice(), undefined, 'pass.com.example.other'), { client }),
      404,
    )
  })
})

describe('unregistering', () => {
  test('401 without the token (still registered), 200 with it (gone), 200 again', async () => {
    const client = newClient()
    const deviceId = newDevice()
    const { passId, token } = await createPass()
    const path = registrationPath(deviceId, passId)
    expect((await call('POST', path, { client, token, body: { pushToken: newPushToken() } })).status).toBe(201)

    await expectJsonMessage(await call('DELETE', path, { client }), 401)
    await expectJsonMessage(await call('DELETE', path, { client, token: 'wrong' }), 401)
    expect(await registrations(passId)).toHaveLength(1)

    expect((await call('DELETE', path, { client, token })).status).toBe(200)
    expect(await registrations(passId)).toEqual([])
    expect((await call('GET', serialsPath(deviceId), { client })).status).toBe(204)
    expect((await call('DELETE', path, { client, token })).status).toBe(200)
    await expectJsonMessage(
      await call('DELETE', registrationPath(deviceId, passId, 'pass.other'), { client, token }),
      404,
    )
  })
})

describe('the latest pass', () => {
  test('200 with Last-Modified, 304 when If-Modified-Since is not older, 200 again after a change', async () => {
    const client = newClient()
    const { passId, token } = await createPass()
    const first = await call('GET', passPath(passId), { client, token })
    expect(first.status).toBe(200)
    expect(first.headers.get('Content-Type')).toBe('application/vnd.apple.pkpass')
    expect(first.headers.get('Cache-Control')).toBe('no-cache')
    const lastModified = first.headers.get('Last-Modified')!
    expect(lastModified).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/)
    const [row] = await sql<{ modified: number }>(
      `select extract(epoch from greatest(p.wallet_modified_at, c.wallet_modified_at))::float8 as modified
       from passes p join cards c on c.id = p.card_id where p.id = :passId`,
      { passId },
    )
    expect(Date.parse(lastModified) / 1000).toBe(Math.floor(row!.modified))
    expect(
      Buffer.from(await first.arrayBuffer())
        .subarray(0, 2)
        .toString('latin1'),
    ).toBe('PK')

    const same = await call('GET', passPath(passId), { client, token, headers: { 'If-Modified-Since': lastModified } })
    expect(same.status).toBe(304)
    expect(same.headers.get('Last-Modified')).toBe(lastModified)
    const later = new Date(Date.parse(lastModified) + 60_000).toUTCString()
    expect(
      (await call('GET', passPath(passId), { client, token, headers: { 'If-Modified-Since': later } })).status,
    ).toBe(304)
    const older = new Date(Date.parse(lastModified) - 1000).toUTCString()
    expect(
      (await call('GET', passPath(passId), { client, token, headers: { 'If-Modified-Since': older } })).status,
    ).toBe(200)
    const garbage = await call('GET', passPath(passId), {
      client,
      token,
      headers: { 'If-Modified-Since': 'yesterday' },
    })
    expect(garbage.status).toBe(200)

    await stamp(passId)
    const changed = await call('GET', passPath(passId), {
      client,
      token,
      headers: { 'If-Modified-Since': lastModified },
    })
    expect(changed.status).toBe(200)
    expect(Date.parse(changed.headers.get('Last-Modified')!)).toBeGreaterThan(Date.parse(lastModified))
  })

  test('401 without or with a wrong token, 404 for an unknown pass or pass type', async () => {
    const client = newClient()
    const { passId, token } = await createPass()
    await expectJsonMessage(await call('GET', passPath(passId), { client }), 401)
    await expectJsonMessage(await call('GET', passPath(passId), { client, token: 'wrong' }), 401)
    const unknown = crypto.randomUUID()
    await expectJsonMessage(await call('GET', passPath(unknown), { client, token: await applePassToken(unknown) }), 404)
    await expectJsonMessage(await call('GET', passPath(passId, 'pass.com.example.other'), { client, token }), 404)
  })

  test("a deleted card's pass is served voided, and listed for its devices, after its row is gone", async () => {
    const client = newClient()
    const deviceId = newDevice()
    const { passId, cardId, token } = await createPass()
    expect(
      (await call('POST', registrationPath(deviceId, passId), { client, token, body: { pushToken: newPushToken() } }))
        .status,
    ).toBe(201)
    const tag = ((await (await call('GET', serialsPath(deviceId), { client })).json()) as { lastUpdated: string })
      .lastUpdated

    const voided = Buffer.from('PK\x03\x04 the voided pass', 'latin1')
    await getSequelize().transaction(async (transaction) => {
      await storeVoidedApplePass(passId, voided, transaction)
      await getSequelize().query(`delete from cards where id = :cardId`, { replacements: { cardId }, transaction })
    })
    expect(await sql(`select id from passes where id = :passId`, { passId })).toEqual([])

    const listed = await call('GET', serialsPath(deviceId, tag), { client })
    expect(listed.status).toBe(200)
    expect(((await listed.json()) as { serialNumbers: string[] }).serialNumbers).toEqual([passId])

    const served = await call('GET', passPath(passId), { client, token })
    expect(served.status).toBe(200)
    expect(served.headers.get('Content-Type')).toBe('application/vnd.apple.pkpass')
    expect(Buffer.from(await served.arrayBuffer())).toEqual(voided)
    const lastModified = served.headers.get('Last-Modified')!
    const notModified = await call('GET', passPath(passId), {
      client,
      token,
      headers: { 'If-Modified-Since': lastModified },
    })
    expect(notModified.status).toBe(304)

    // Registering again is refused (nothing more to hear about); unregistering works.
    await expectJsonMessage(
      await call('POST', registrationPath(newDevice(), passId), { client, token, body: { pushToken: newPushToken() } }),
      404,
    )
    expect((await call('DELETE', registrationPath(deviceId, passId), { client, token })).status).toBe(200)
  })
})

describe('the log', () => {
  test('200 for a list of lines (long ones and many of them too); 400 for anything else', async () => {
    const client = newClient()
    expect(
      (await call('POST', '/wallet/apple/v1/log', { client, body: { logs: ['Could not fetch the pass'] } })).status,
    ).toBe(200)
    const many = Array.from({ length: 60 }, (_, index) => `line ${index} ${'x'.repeat(700)}`)
    expect((await call('POST', '/wallet/apple/v1/log', { client, body: { logs: many } })).status).toBe(200)
    const other = newClient()
    for (const body of [{}, { logs: 'one line' }, { logs: [1, 2] }]) {
      await expectJsonMessage(await call('POST', '/wallet/apple/v1/log', { client: other, body }), 400)
    }
    // JSON bodies keep the 64 KB limit.
    const tooMuch = { logs: Array.from({ length: 100 }, () => 'x'.repeat(1000)) }
    expect((await call('POST', '/wallet/apple/v1/log', { client: newClient(), body: tooMuch })).status).toBe(413)
  })
})

describe('rate limits per client address', () => {
  test(`${REGISTRATION_LIMIT} registration calls (POST and DELETE, refused ones too), then 429 with Retry-After`, async () => {
    const client = newClient()
    const { passId, token } = await createPass()
    const path = registrationPath(newDevice(), passId)
    for (let index = 0; index < REGISTRATION_LIMIT; index++) {
      const response =
        index % 3 === 0
          ? await call('DELETE', path, { client, token })
          : await call('POST', path, { client, token: index % 3 === 1 ? token : 'wrong', body: { pushToken: 'ab' } })
      expect(response.status, `call ${index + 1}`).toBeLessThan(429)
    }
    const limited = await call('POST', path, { client, token, body: { pushToken: 'ab' } })
    await expectJsonMessage(limited, 429)
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0)
    await expectJsonMessage(await call('DELETE', path, { client, token }), 429)
    // Another address is not held back.
    expect((await call('DELETE', path, { client: newClient(), token })).status).toBe(200)
  })

  test(`${LOG_LIMIT} log posts, then 429; IPv6 clients count per /64`, async () => {
    const log = (client: string) => call('POST', '/wallet/apple/v1/log', { client, body: { logs: ['line'] } })
    expect((await log('2001:db8:16:1::1')).status).toBe(200)
    expect((await log('2001:db8:16:1::2')).status).toBe(200)
    expect((await log('2001:db8:16:1:ffff::3')).status).toBe(200)
    const limited = await log('2001:db8:16:1::4')
    await expectJsonMessage(limited, 429)
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0)
    expect((await log('2001:db8:16:2::1')).status).toBe(200)
  })
})

describe('methods the service does not take', () => {
  test('405 with Allow', async () => {
    const client = newClient()
    const response = await call('GET', registrationPath(newDevice(), crypto.randomUUID()), { client })
    await expectJsonMessage(response, 405)
    expect(response.headers.get('Allow')).toBe('POST, DELETE')
    expect((await call('GET', '/wallet/apple/v1/log', { client })).status).toBe(405)
    expect((await call('POST', passPath(crypto.randomUUID()), { client, body: {} })).status).toBe(405)
  })
})
