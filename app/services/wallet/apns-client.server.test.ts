import { execFileSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { startApnsPeer, type ApnsPeer } from '#tests/support/apns-peer.ts'
import { startTcpProxy } from '#tests/support/tcp-proxy.ts'
import { createApnsClient, type ApnsClient } from './apns-client.server.ts'

const TOPIC = 'pass.com.example.stampwise'
const TEAM_ID = 'TEAM123456'
const KEY_ID = 'KEY1234567'
const MINUTE = 60 * 1000

const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
// What Apple hands out as an APNs key (.p8): PKCS#8 PEM of a P-256 key.
const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }) as string
const tokenAuth = { kind: 'token' as const, teamId: TEAM_ID, keyId: KEY_ID, privateKeyPem }

const deviceToken = () => crypto.randomBytes(32).toString('hex')

const opened: { close(): Promise<void> }[] = []
function track<T extends { close(): Promise<void> }>(thing: T) {
  opened.push(thing)
  return thing
}
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close()
})

describe('token authentication', () => {
  let clock = Date.now()
  const now = () => clock
  let peer: ApnsPeer
  let client: ApnsClient
  const start = async (timeoutMs?: number) => {
    clock = Date.now()
    peer = track(await startApnsPeer({ topic: TOPIC, teamId: TEAM_ID, keyId: KEY_ID, publicKeyPem, now }))
    client = track(createApnsClient({ origin: peer.origin, topic: TOPIC, auth: tokenAuth, now, timeoutMs }))
  }

  test('an empty background push with a valid ES256 provider token, as Apple requires', async () => {
    await start()
    const token = deviceToken()
    expect(await client.send(token)).toEqual({ status: 200 })
    const [request] = peer.requests()
    expect(peer.violations()).toEqual([])
    expect(request).toMatchObject({ token, body: '{}', status: 200, authorizedBy: 'token' })
    expect(request!.headers).toMatchObject({
      ':method': 'POST',
      ':path': `/3/device/${token}`,
      'apns-topic': TOPIC,
      'apns-push-type': 'background',
      'apns-priority': '5',
      'content-type': 'application/json',
    })
    expect(decodeProtectedHeader(request!.jwt!)).toEqual({ alg: 'ES256', kid: KEY_ID })
    expect(decodeJwt(request!.jwt!)).toEqual({ iss: TEAM_ID, iat: Math.floor(clock / 1000) })
  })

  test('one provider token is reused for 50 minutes, then a new one is made', async () => {
    await start()
    const jwts = async () => {
      expect(await client.send(deviceToken())).toEqual({ status: 200 })
      return peer.requests().at(-1)!.jwt!
    }
    const first = await jwts()
    clock += 20 * MINUTE
    expect(await jwts()).toBe(first)
    clock += 29 * MINUTE + 59_000
    expect(await jwts()).toBe(first)
    clock += 1000
    const second = await jwts()
    expect(second).not.toBe(first)
    expect(decodeJwt(second).iat).toBe(Math.floor(clock / 1000))
    clock += 49 * MINUTE
    expect(await jwts()).toBe(second)
    expect(peer.violations()).toEqual([])
    expect(peer.sessions()).toBe(1)
  })

  test('the peer counts provider token updates per connection, and refuses one within 20 minutes', async () => {
    await start()
    expect(await client.send(deviceToken())).toEqual({ status: 200 })
    // A second client is a second connection (another process): its own token is fine.
    const other = track(
      createApnsClient({ origin: peer.origin, topic: TOPIC, auth: tokenAuth, now: () => clock - 1000 }),
    )
    expect(await other.send(deviceToken())).toEqual({ status: 200 })
    expect(peer.violations()).toEqual([])
    // The clock went back: the client makes a new token, which Apple refuses on the same connection.
    clock -= 5000
    expect(await client.send(deviceToken())).toEqual({ status: 429, reason: 'TooManyProviderTokenUpdates' })
    expect(peer.sessions()).toBe(2)
  })

  test('20 sends at once share one connection and one provider token', async () => {
    await start()
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.send(deviceToken())))
    expect(answers).toEqual(Array(20).fill({ status: 200 }))
    expect(peer.sessions()).toBe(1)
    expect(new Set(peer.requests().map((request) => request.jwt)).size).toBe(1)
    expect(peer.violations()).toEqual([])
  })

  test('sends are in flight together: 20 unanswered requests all reach the peer on one connection', async () => {
    await start(2000)
    const tokens = Array.from({ length: 20 }, deviceToken)
    for (const token of tokens) peer.setBehaviour(token, 'hang')
    const answers = Promise.all(tokens.map((token) => client.send(token)))
    await peer.waitFor(20, 1500)
    expect(peer.requests().every((request) => request.status === null)).toBe(true)
    expect(peer.sessions()).toBe(1)
    for (const answer of await answers) expect(answer).toEqual({ status: 0, error: expect.stringMatching(/no answer/) })
  })

  test.each([{ goaway: false }, { goaway: true }])(
    'a new connection after the peer drops the old one (goaway: $goaway)',
    async ({ goaway }) => {
      await start()
      expect(await client.send(deviceToken())).toEqual({ status: 200 })
      await peer.dropSessions({ goaway })
      expect(await client.send(deviceToken())).toEqual({ status: 200 })
      expect(await client.send(deviceToken())).toEqual({ status: 200 })
      expect(peer.sessions()).toBe(2)
      expect(peer.violations()).toEqual([])
    },
  )

  test.each([{ goaway: false }, { goaway: true }])(
    'a send caught by the drop, before the client knew of it, goes again on a new connection (goaway: $goaway)',
    async ({ goaway }) => {
      await start()
      expect(await client.send(deviceToken())).toEqual({ status: 200 })
      // The send starts in the same tick as the drop: it goes out on the old connection.
      const dropped = peer.dropSessions({ goaway })
      const tokens = [deviceToken(), deviceToken()]
      expect(await Promise.all(tokens.map((token) => client.send(token)))).toEqual([{ status: 200 }, { status: 200 }])
      await dropped
      expect(peer.sessions()).toBe(2)
      expect(
        peer
          .requests()
          .filter((request) => request.status === 200)
          .map((request) => request.token),
      ).toEqual(expect.arrayContaining(tokens))
    },
  )

  test("Apple's answers: 410 Unregistered, 429 with Retry-After, 503, and a hang times out", async () => {
    await start(300)
    const [gone, limited, unavailable, hanging] = Array.from({ length: 4 }, deviceToken) as [
      string,
      string,
      string,
      string,
    ]
    peer.setBehaviour(gone, 'gone')
    peer.setBehaviour(limited, { fail: 1, status: 429, retryAfter: 30 })
    peer.setBehaviour(unavailable, { status: 503 })
    peer.setBehaviour(hanging, 'hang')
    expect(await client.send(gone)).toEqual({ status: 410, reason: 'Unregistered' })
    expect(await client.send(limited)).toEqual({ status: 429, reason: 'TooManyRequests', retryAfterMs: 30_000 })
    expect(await client.send(limited)).toEqual({ status: 200 })
    expect(await client.send(unavailable)).toEqual({ status: 503, reason: 'ServiceUnavailable' })
    const started = Date.now()
    expect(await client.send(hanging)).toEqual({ status: 0, error: 'no answer from APNs within 300 ms' })
    expect(Date.now() - started).toBeLessThan(2000)
    // The connection still answers its PING: it is kept.
    await sleep(400)
    expect(await client.send(deviceToken())).toEqual({ status: 200 })
    expect(peer.sessions()).toBe(1)
  })

  test('a connection that goes silent is dropped after a timeout, and the next send opens a new one', async () => {
    await start(300)
    const proxy = track(await startTcpProxy({ host: '127.0.0.1', port: peer.port }))
    const viaProxy = track(
      createApnsClient({
        origin: `https://localhost:${proxy.port}`,
        topic: TOPIC,
        auth: tokenAuth,
        now,
        timeoutMs: 300,
      }),
    )
    expect(await viaProxy.send(deviceToken())).toEqual({ status: 200 })
    proxy.blackhole()
    expect(await viaProxy.send(deviceToken())).toEqual({ status: 0, error: 'no answer from APNs within 300 ms' })
    // The PING after the timeout gets no answer within 300 ms either: the connection is dropped.
    await sleep(500)
    proxy.restore()
    expect(await viaProxy.send(deviceToken())).toEqual({ status: 200 })
    expect(peer.sessions()).toBe(2)
  })

  test('a token that is not hex is refused without a request', async () => {
    await start()
    for (const token of ['', 'abc/../../x', 'zz', 'ab cd', `${'a'.repeat(201)}`, 'aa?x=1']) {
      expect(await client.send(token)).toEqual({ status: 400, reason: 'BadDeviceToken' })
    }
    expect(peer.requests()).toEqual([])
    expect(peer.sessions()).toBe(0)
  })

  test('the peer refuses what Apple would refuse (the checks can fail)', async () => {
    await start()
    const wrongTopic = track(createApnsClient({ origin: peer.origin, topic: 'pass.other', auth: tokenAuth, now }))
    expect(await wrongTopic.send(deviceToken())).toEqual({ status: 400, reason: 'BadTopic' })
    const wrongKid = track(
      createApnsClient({ origin: peer.origin, topic: TOPIC, auth: { ...tokenAuth, keyId: 'OTHERKEY00' }, now }),
    )
    expect(await wrongKid.send(deviceToken())).toEqual({ status: 403, reason: 'InvalidProviderToken' })
    const other = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey
    const wrongKey = track(
      createApnsClient({
        origin: peer.origin,
        topic: TOPIC,
        auth: { ...tokenAuth, privateKeyPem: other.export({ type: 'pkcs8', format: 'pem' }) as string },
        now,
      }),
    )
    expect(await wrongKey.send(deviceToken())).toEqual({ status: 403, reason: 'InvalidProviderToken' })
    const stale = track(
      createApnsClient({ origin: peer.origin, topic: TOPIC, auth: tokenAuth, now: () => clock - 61 * MINUTE }),
    )
    expect(await stale.send(deviceToken())).toEqual({ status: 403, reason: 'ExpiredProviderToken' })
    expect(peer.violations().map((violation) => violation.reason)).toEqual([
      'BadTopic',
      'InvalidProviderToken',
      'InvalidProviderToken',
      'ExpiredProviderToken',
    ])
  })

  test('a key that is not P-256 is refused when the client is made; a closed client sends nothing', async () => {
    await start()
    const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    expect(() =>
      createApnsClient({
        origin: peer.origin,
        topic: TOPIC,
        auth: { ...tokenAuth, privateKeyPem: rsa.export({ type: 'pkcs8', format: 'pem' }) as string },
      }),
    ).toThrow(/P-256/)
    await client.close()
    expect(await client.send(deviceToken())).toEqual({ status: 0, error: 'APNs client closed' })
    expect(peer.requests()).toEqual([])
  })
})

describe('certificate authentication', () => {
  // A CA and a Pass Type ID certificate (subject UID = the pass type id) made here with openssl; a second CA's
  // certificate stands for one Apple did not issue.
  let dir: string
  let ca: string
  let pass: { certPem: string; keyPem: string }
  let stranger: { certPem: string; keyPem: string }
  let otherTopic: { certPem: string; keyPem: string }
  let encryptedKeyPem: string

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apns-certs-'))
    const openssl = (command: string, ...args: string[]) =>
      execFileSync('openssl', [...command.split(' '), ...args], { cwd: dir, stdio: 'pipe' })
    const newCa = (name: string) =>
      openssl(
        'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2',
        '-subj',
        `/CN=${name}`,
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.pem`,
      )
    const leaf = (name: string, signer: string, topic = TOPIC) => {
      // As Apple issues a Pass Type ID certificate: an RSA key, the pass type id as the subject's UID.
      openssl(
        'req -new -newkey rsa:2048 -nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.csr`,
        '-subj',
        `/UID=${topic}/CN=Pass Type ID: ${topic}/OU=${TEAM_ID}/O=Test`,
      )
      fs.writeFileSync(path.join(dir, 'client.ext'), 'extendedKeyUsage = clientAuth\n')
      openssl(
        'x509 -req -CAcreateserial -days 2 -extfile client.ext',
        '-in',
        `${name}.csr`,
        '-CA',
        `${signer}.pem`,
        '-CAkey',
        `${signer}.key`,
        '-out',
        `${name}.pem`,
      )
      return {
        certPem: fs.readFileSync(path.join(dir, `${name}.pem`), 'utf8'),
        keyPem: fs.readFileSync(path.join(dir, `${name}.key`), 'utf8'),
      }
    }
    newCa('ca')
    newCa('other-ca')
    ca = fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8')
    pass = leaf('pass', 'ca')
    stranger = leaf('stranger', 'other-ca')
    otherTopic = leaf('other-topic', 'ca', 'pass.com.example.other')
    openssl('pkey -aes256 -passout pass:sesame', '-in', 'pass.key', '-out', 'pass-encrypted.key')
    encryptedKeyPem = fs.readFileSync(path.join(dir, 'pass-encrypted.key'), 'utf8')
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  test('the pass certificate authenticates the connection; no provider token is sent', async () => {
    const peer = track(await startApnsPeer({ topic: TOPIC, clientCaPem: ca }))
    const client = track(
      createApnsClient({ origin: peer.origin, topic: TOPIC, auth: { kind: 'certificate', ...pass } }),
    )
    const answers = await Promise.all(Array.from({ length: 5 }, () => client.send(deviceToken())))
    expect(answers).toEqual(Array(5).fill({ status: 200 }))
    expect(peer.violations()).toEqual([])
    expect(peer.sessions()).toBe(1)
    for (const request of peer.requests()) {
      expect(request.authorizedBy).toBe('certificate')
      expect(request.headers.authorization).toBeUndefined()
    }
  })

  test('without a client certificate, or with one from another CA, the connection is refused: status 0', async () => {
    const peer = track(await startApnsPeer({ topic: TOPIC, clientCaPem: ca }))
    const noCertificate = track(createApnsClient({ origin: peer.origin, topic: TOPIC, auth: tokenAuth }))
    const answer = await noCertificate.send(deviceToken())
    expect(answer).toEqual({ status: 0, error: expect.stringMatching(/certificate required/) })
    const strangers = track(
      createApnsClient({ origin: peer.origin, topic: TOPIC, auth: { kind: 'certificate', ...stranger } }),
    )
    expect(await strangers.send(deviceToken())).toEqual({
      status: 0,
      // TLS 1.3: the server's refusal may come as an alert or as a bare close.
      error: expect.stringMatching(/unknown ca|connection closed without an answer/),
    })
    expect(peer.requests()).toEqual([])
    expect(peer.sessions()).toBe(0)
    expect(peer.refusedConnections()).toBe(2)
  })

  test('a certificate for another pass type id is refused, as Apple refuses it', async () => {
    const peer = track(await startApnsPeer({ topic: TOPIC, clientCaPem: ca }))
    const client = track(
      createApnsClient({ origin: peer.origin, topic: TOPIC, auth: { kind: 'certificate', ...otherTopic } }),
    )
    expect(await client.send(deviceToken())).toEqual({ status: 403, reason: 'BadCertificate' })
    expect(peer.violations()).toEqual([expect.objectContaining({ reason: 'BadCertificate' })])
  })

  test('a key with a passphrase (APPLE_PASS_KEY_PASSPHRASE); a wrong passphrase is refused when made', async () => {
    const peer = track(await startApnsPeer({ topic: TOPIC, clientCaPem: ca }))
    const encrypted = { kind: 'certificate' as const, certPem: pass.certPem, keyPem: encryptedKeyPem }
    const client = track(
      createApnsClient({ origin: peer.origin, topic: TOPIC, auth: { ...encrypted, passphrase: 'sesame' } }),
    )
    expect(await client.send(deviceToken())).toEqual({ status: 200 })
    expect(() =>
      createApnsClient({ origin: peer.origin, topic: TOPIC, auth: { ...encrypted, passphrase: 'wrong' } }),
    ).toThrow()
  })

  test('a certificate that does not match its key is refused when the client is made', () => {
    expect(() =>
      createApnsClient({
        origin: 'https://localhost:1',
        topic: TOPIC,
        auth: { kind: 'certificate', certPem: pass.certPem, keyPem: stranger.keyPem },
      }),
    ).toThrow()
  })
})
