import crypto, { X509Certificate } from 'node:crypto'
import sharp from 'sharp'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { startJobs } from '#app/main/jobs.server.ts'
import { loadAppleWalletConfig } from '#app/server/apple-wallet-config.server.ts'
import { parseEnv, resetEnvForTests } from '#app/server/env.server.ts'
import { sendOwnerNotification } from '#app/services/push/push-send.server.ts'
import { deliverApplePushes } from '#app/services/wallet/apple-push-delivery.server.ts'
import { runWalletHousekeeping } from '#app/services/wallet/wallet-housekeeping.server.ts'
import { formatDate } from '#app/utils/plan-format.ts'
import { claimApplePushes } from '#models/apple-push.server.ts'
import { createDraftNotification } from '#models/notification.server.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { startApnsPeer, type ApnsPeer } from '#tests/support/apns-peer.ts'
import { makeAppleCerts, makeExpiringCert } from '#tests/support/apple-certs.ts'
import { createUser, logIn, sql } from '#tests/support/auth-api.ts'
import { verifyPkpass } from '#tests/support/pkpass.ts'
import { useTestServer } from '#tests/support/test-server.ts'
import {
  applePassAuthorization,
  applePushesOf,
  createWalletCard,
  createWalletPass,
  newDevice,
  registerDevice,
} from '#tests/support/wallet-device.ts'

/**
 * Apple Wallet end to end (issue 16), on the real database (embedded, or the server with TEST_DATABASE_URL): the
 * signed pass as the holder downloads it, verified as Apple would (manifest hashes, the PKCS#7 signature with
 * openssl against the test CA); and its updates: a stamp, an undo, a redemption, a design change, a message or a
 * deleted card reaches each registered device once through a local APNs peer (HTTP/2, ES256 provider token), which
 * answers 200, 410, 429 or 503 as a test needs. Certificate authentication has its own file (one setting apart).
 */
const certs = makeAppleCerts()
Object.assign(process.env, certs.env())
resetEnvForTests()

let peer: ApnsPeer
let jobs: Awaited<ReturnType<typeof startJobs>>
beforeAll(async () => {
  peer = await startApnsPeer({
    topic: certs.passTypeId,
    teamId: certs.teamId,
    keyId: certs.apnsKeyId,
    publicKeyPem: crypto.createPublicKey(certs.apnsKeyPem).export({ type: 'spki', format: 'pem' }).toString(),
  })
  process.env.APNS_ORIGIN = peer.origin
  resetEnvForTests()
  jobs = await startJobs()
})
afterAll(async () => {
  await jobs?.stop()
  await peer?.close()
})
const server = useTestServer()

beforeEach(() => {
  expect(peer.violations()).toEqual([])
})

async function ownerWithPass({ stamps = 0, stampsRequired = 5 } = {}) {
  const owner = await signedInOwner(server)
  const cardId = await createWalletCard(owner.id, { stampsRequired })
  const pass = await createWalletPass(cardId, stamps)
  return { owner, cardId, pass }
}

async function download(passId: string) {
  const response = await server.fetch(`/p/${passId}/wallet.pkpass`)
  return { response, body: Buffer.from(await response.arrayBuffer()) }
}

const pushesTo = (pushToken: string) => peer.requests().filter((request) => request.token === pushToken)

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

const stamp = (cardId: string, cookie: string, code: string) =>
  server.post(`/account/${cardId}/scan`, { intent: 'stamp', code }, cookie)

describe('the pass', () => {
  test('downloads as a signed storeCard that openssl verifies against the CA, with its fields', async () => {
    const { pass } = await ownerWithPass({ stamps: 2 })
    const { response, body } = await download(pass.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/vnd.apple.pkpass')
    expect(response.headers.get('last-modified')).toMatch(/GMT$/)
    const { files, passJson } = verifyPkpass(body, certs.caPath)
    for (const name of ['icon', 'logo', 'strip'])
      for (const scale of ['', '@2x', '@3x']) expect(files.has(`${name}${scale}.png`)).toBe(true)
    expect(passJson).toMatchObject({
      formatVersion: 1,
      passTypeIdentifier: certs.passTypeId,
      teamIdentifier: certs.teamId,
      serialNumber: pass.id,
      organizationName: 'Corner Coffee',
      description: 'Coffee card',
      authenticationToken: (await applePassAuthorization(pass.id)).slice('ApplePass '.length),
      barcodes: [
        expect.objectContaining({ format: 'PKBarcodeFormatQR', message: pass.shortCode, altText: pass.shortCode }),
      ],
    })
    expect(passJson.webServiceURL).toMatch(/\/wallet\/apple$/)
    expect(passJson.storeCard.primaryFields[0]).toMatchObject({ value: '2 of 5', changeMessage: 'Stamps: %@' })
  })

  test('on a device: the message field before any message (so the first one alerts), the business name on the front, no sharing, the strip at 375×144 points', async () => {
    const { pass } = await ownerWithPass({ stamps: 1, stampsRequired: 20 })
    const { files, passJson } = verifyPkpass((await download(pass.id)).body, certs.caPath)
    expect(passJson.logoText).toBe('Corner Coffee')
    expect(passJson.sharingProhibited).toBe(true)
    expect(passJson.storeCard.backFields).toContainEqual({
      key: 'message',
      label: 'Message',
      value: 'Messages from Corner Coffee will show here.',
      changeMessage: '%@',
    })
    for (const [suffix, scale] of [
      ['', 1],
      ['@2x', 2],
      ['@3x', 3],
    ] as const) {
      const { width, height } = await sharp(files.get(`strip${suffix}.png`)!).metadata()
      expect([width, height], `strip${suffix}.png`).toEqual([375 * scale, 144 * scale])
    }
  })

  test('a tampered pass fails the verification', async () => {
    const { pass } = await ownerWithPass()
    const { body } = await download(pass.id)
    const tampered = Buffer.from(body)
    // Flip a byte inside pass.json's stored text: its hash no longer matches the signed manifest.
    const at = tampered.indexOf(Buffer.from('Corner Coffee'))
    tampered[at] = 'K'.charCodeAt(0)
    expect(() => verifyPkpass(tampered, certs.caPath)).toThrow()
  })

  test('an unknown pass is a 404, and the pass page links to Wallet without JavaScript', async () => {
    expect((await download(crypto.randomUUID())).response.status).toBe(404)
    expect((await download('not-a-pass')).response.status).toBe(404)
    const { pass } = await ownerWithPass()
    const html = await (await server.fetch(`/p/${pass.id}`)).text()
    expect(html).toContain(`href="/p/${pass.id}/wallet.pkpass"`)
    expect(html).toContain('Add to Apple Wallet')
  })

  test('the owner’s card page says holders can add it, and counts those who did', async () => {
    const { owner, cardId, pass } = await ownerWithPass()
    await registerDevice(server, certs.passTypeId, pass.id, newDevice())
    const html = await (await server.fetch(`/account/${cardId}`, { headers: { cookie: owner.cookie } })).text()
    expect(html).toContain('holders can add this card to Apple Wallet')
    expect(html).toMatch(/In Apple Wallet<\/dt><dd>1<\/dd>/)
  })
})

describe('updates through APNs', () => {
  test('a stamp reaches every registered device of the pass once, and no other device', async () => {
    const { owner, cardId, pass } = await ownerWithPass()
    const other = await createWalletPass(cardId)
    const [phone, watch, neighbour] = [newDevice(), newDevice(), newDevice()]
    expect(await registerDevice(server, certs.passTypeId, pass.id, phone)).toBe(201)
    expect(await registerDevice(server, certs.passTypeId, pass.id, watch)).toBe(201)
    expect(await registerDevice(server, certs.passTypeId, other.id, neighbour)).toBe(201)
    expect((await stamp(cardId, owner.cookie, pass.shortCode)).status).toBe(302)
    await until(() => pushesTo(phone.pushToken).length === 1 && pushesTo(watch.pushToken).length === 1, 'two pushes')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(pushesTo(phone.pushToken)).toHaveLength(1)
    expect(pushesTo(neighbour.pushToken)).toHaveLength(0)
    const [push] = pushesTo(phone.pushToken)
    expect(push!.headers['apns-topic']).toBe(certs.passTypeId)
    expect(push!.headers['apns-push-type']).toBe('background')
    expect(push!.body).toBe('{}')
    expect(await applePushesOf(phone.pushToken)).toEqual([expect.objectContaining({ status: 'sent', attempts: 1 })])
    // The device then fetches the pass: one stamp more.
    const { passJson } = verifyPkpass((await download(pass.id)).body, certs.caPath)
    expect(passJson.storeCard.primaryFields[0].value).toBe('1 of 5')
  })

  test('a design change pushes every device of the card, once per device', async () => {
    const { cardId, pass } = await ownerWithPass()
    const second = await createWalletPass(cardId)
    const device = newDevice()
    await registerDevice(server, certs.passTypeId, pass.id, device)
    await registerDevice(server, certs.passTypeId, second.id, device)
    const elsewhere = newDevice()
    await registerDevice(server, certs.passTypeId, second.id, elsewhere)
    await sql(`update cards set background_color = '#112233' where id = :cardId`, { cardId })
    await deliverApplePushes()
    expect(pushesTo(device.pushToken)).toHaveLength(1)
    expect(pushesTo(elsewhere.pushToken)).toHaveLength(1)
    const { passJson } = verifyPkpass((await download(pass.id)).body, certs.caPath)
    expect(passJson.backgroundColor).toBe('rgb(17, 34, 51)')
  })

  test('410 forgets the device and its registrations', async () => {
    const { owner, cardId, pass } = await ownerWithPass()
    const device = newDevice()
    await registerDevice(server, certs.passTypeId, pass.id, device)
    peer.setBehaviour(device.pushToken, 'gone')
    await stamp(cardId, owner.cookie, pass.shortCode)
    await until(async () => (await applePushesOf(device.pushToken))[0]?.status === 'gone', 'the push gone')
    expect(await sql(`select 1 from apple_devices where id = :id`, { id: device.deviceId })).toEqual([])
    expect(await sql(`select 1 from apple_registrations where pass_id = :id`, { id: pass.id })).toEqual([])
  })

  test('429 and 503 are retried until APNs takes the push', async () => {
    const { owner, cardId, pass } = await ownerWithPass()
    const [busy, down] = [newDevice(), newDevice()]
    await registerDevice(server, certs.passTypeId, pass.id, busy)
    await registerDevice(server, certs.passTypeId, pass.id, down)
    peer.setBehaviour(busy.pushToken, { fail: 1, status: 429, retryAfter: 0 })
    peer.setBehaviour(down.pushToken, { fail: 2, status: 503 })
    await stamp(cardId, owner.cookie, pass.shortCode)
    await until(
      async () =>
        (await applePushesOf(busy.pushToken))[0]?.status === 'sent' &&
        (await applePushesOf(down.pushToken))[0]?.status === 'sent',
      'both sent after retries',
      20_000,
    )
    expect(pushesTo(busy.pushToken).map((request) => request.status)).toEqual([429, 200])
    expect(pushesTo(down.pushToken).map((request) => request.status)).toEqual([503, 503, 200])
    expect((await applePushesOf(down.pushToken))[0]!.attempts).toBe(3)
  })

  test('after a crash mid-send only the pushes in flight are sent again, once their lease ends', async () => {
    const { cardId, pass } = await ownerWithPass()
    const [done, inFlight] = [newDevice(), newDevice()]
    await registerDevice(server, certs.passTypeId, pass.id, done)
    await sql(`update passes set stamps = 1 where id = :id`, { id: pass.id })
    await deliverApplePushes()
    expect(pushesTo(done.pushToken)).toHaveLength(1)
    await registerDevice(server, certs.passTypeId, pass.id, inFlight)
    await sql(`update cards set reward = 'Two free coffees' where id = :cardId`, { cardId })
    // A process claims the two new pushes and dies before writing their outcome: their leases hold them.
    const claimed = await claimApplePushes(10, 30)
    expect(claimed).toHaveLength(2)
    const held = await deliverApplePushes()
    expect(held.sent).toBe(0)
    expect(held.retryLaterInMs).toBeGreaterThan(20_000)
    expect(pushesTo(inFlight.pushToken)).toHaveLength(0)
    // The lease ends: another process (this one) takes them over, and sends each once.
    await sql(`update apple_pushes set lease_until = now() - interval '1 second' where status = 'pending'`)
    await deliverApplePushes()
    expect(pushesTo(done.pushToken)).toHaveLength(2)
    expect(pushesTo(inFlight.pushToken)).toHaveLength(1)
    expect((await applePushesOf(inFlight.pushToken)).map((push) => push.status)).toEqual(['sent'])
  })

  test('an undo and a redemption each push again, and the pass tells the reward once earned', async () => {
    const { owner, cardId, pass } = await ownerWithPass({ stamps: 4 })
    const device = newDevice()
    await registerDevice(server, certs.passTypeId, pass.id, device)
    await stamp(cardId, owner.cookie, pass.shortCode)
    await until(() => pushesTo(device.pushToken).length === 1, 'the stamp push')
    const earned = verifyPkpass((await download(pass.id)).body, certs.caPath).passJson
    expect(JSON.stringify(earned.storeCard)).toContain('Reward earned: A free coffee')
    const undo = await server.fetch(`/account/${cardId}/scan`, {
      method: 'POST',
      headers: { cookie: owner.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ intent: 'undo', passId: pass.id }),
    })
    expect(undo.status).toBe(302)
    await until(() => pushesTo(device.pushToken).length === 2, 'the undo push')
    await sql(`update passes set stamps = 5 where id = :id`, { id: pass.id })
    await sql(`update passes set stamps = 0, rewards_redeemed = rewards_redeemed + 1 where id = :id`, { id: pass.id })
    await deliverApplePushes()
    expect(pushesTo(device.pushToken)).toHaveLength(4)
  })
})

describe('messages and what owners and admins see', () => {
  test('a message shows on the back of the pass (changeMessage %@) and each Wallet device of the card is pushed once', async () => {
    const { owner, cardId, pass } = await ownerWithPass()
    const second = await createWalletPass(cardId)
    const device = newDevice()
    await registerDevice(server, certs.passTypeId, pass.id, device)
    await registerDevice(server, certs.passTypeId, second.id, device)
    const draft = await createDraftNotification({
      ownerId: owner.id,
      cardId,
      input: { title: 'Happy hour', body: 'Two coffees for one until 6 pm' },
    })
    const sent = await sendOwnerNotification({ ownerId: owner.id, cardId, notificationId: draft!.id })
    expect(sent.ok).toBe(true)
    await until(
      async () => (await applePushesOf(device.pushToken)).some((push) => push.status === 'sent'),
      'the message push',
    )
    expect(await applePushesOf(device.pushToken)).toEqual([
      expect.objectContaining({ status: 'sent', notification_id: draft!.id }),
    ])
    const { passJson } = verifyPkpass((await download(pass.id)).body, certs.caPath)
    expect(passJson.storeCard.backFields).toContainEqual(
      expect.objectContaining({ key: 'message', value: 'Two coffees for one until 6 pm', changeMessage: '%@' }),
    )
    await until(
      async () =>
        (await sql<{ status: string }>(`select status from notifications where id = :id`, { id: draft!.id }))[0]
          ?.status === 'done',
      'the message done',
    )
  })

  test('/admin says Apple Wallet is on and until when its certificate signs, and what would turn Google Wallet on', async () => {
    const admin = await createUser()
    await sql(`update users set role = 'admin' where id = :id`, { id: admin.id })
    const cookie = await logIn(server, admin.email)
    const html = await (await server.fetch('/admin', { headers: { cookie } })).text()
    expect(html).toContain('Apple Wallet: </strong>on')
    const until = new Date(new X509Certificate(certs.certPem).validTo)
    expect(html).toContain(`pass certificate valid until ${formatDate(until.toISOString())}`)
    // Google Wallet is off in this file (admin-wallet-status.test.ts has it on).
    expect(html).toContain(
      '<strong>Google Wallet: </strong>off</p><p class="field-hint">To turn it on, set: ' +
        '<span><code>GOOGLE_WALLET_ISSUER_ID</code></span><span>, <code>GOOGLE_WALLET_SERVICE_ACCOUNT</code></span></p>',
    )
  })
})

test('/admin notes that Wallet on a phone needs https, quietly while APP_URL is on this computer', async () => {
  const admin = await createUser()
  await sql(`update users set role = 'admin' where id = :id`, { id: admin.id })
  const cookie = await logIn(server, admin.email)
  const html = (await (await server.fetch('/admin', { headers: { cookie } })).text()).replaceAll('<!-- -->', '')
  expect(html).toMatch(
    /<p class="field-hint">Apple Wallet: APP_URL \(http:\/\/(localhost|127\.0\.0\.1)[^)]*\) is http on this computer/,
  )
  // The warning for any other host: admin-apple-wallet-url.test.ts (the app reads APP_URL once).
})

test('a pass certificate ending within 30 days is warned of once a day by the wallet housekeeping', async () => {
  const expiring = loadAppleWalletConfig(parseEnv({ ...process.env, APPLE_PASS_CERT: makeExpiringCert(10) }))!
  const now = new Date()
  const first = await runWalletHousekeeping(now, expiring)
  expect(first.warned).toMatch(/^Apple Wallet: the pass certificate \(APPLE_PASS_CERT\) expires on .* \(in 10 days\)/)
  expect((await runWalletHousekeeping(new Date(now.getTime() + 3_600_000), expiring)).warned).toBeNull()
  expect((await runWalletHousekeeping(new Date(now.getTime() + 86_400_000), expiring)).warned).toMatch(/in 9 days/)
  expect((await runWalletHousekeeping(now)).warned).toBeNull()
})

describe('ending a card', () => {
  test('deleting the card voids its passes in Wallet: the devices are pushed and fetch the voided pass', async () => {
    const { owner, cardId, pass } = await ownerWithPass()
    const device = newDevice()
    await registerDevice(server, certs.passTypeId, pass.id, device)
    const response = await server.fetch(`/account/${cardId}`, {
      method: 'POST',
      headers: { cookie: owner.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ intent: 'delete', confirm: 'Coffee card' }),
    })
    expect(response.status).toBe(302)
    await until(() => pushesTo(device.pushToken).length === 1, 'the voiding push')
    expect(await sql(`select 1 from passes where id = :id`, { id: pass.id })).toEqual([])
    const fetched = await server.fetch(`/wallet/apple/v1/passes/${certs.passTypeId}/${pass.id}`, {
      headers: { authorization: await applePassAuthorization(pass.id) },
    })
    expect(fetched.status).toBe(200)
    const { passJson } = verifyPkpass(Buffer.from(await fetched.arrayBuffer()), certs.caPath)
    expect(passJson.voided).toBe(true)
  })

  test('deleting the account voids the passes of every card of it', async () => {
    const { owner, cardId, pass } = await ownerWithPass()
    const otherCard = await createWalletCard(owner.id)
    const otherPass = await createWalletPass(otherCard)
    const device = newDevice()
    await registerDevice(server, certs.passTypeId, pass.id, device)
    await registerDevice(server, certs.passTypeId, otherPass.id, device)
    const response = await server.fetch('/account/profile', {
      method: 'POST',
      headers: { cookie: owner.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ intent: 'delete', confirm: owner.email }),
    })
    expect(response.status).toBeLessThan(400)
    expect(await sql(`select 1 from cards where id = :cardId`, { cardId })).toEqual([])
    const voided = await sql<{ pass_id: string }>(
      `select pass_id from apple_voided_passes where pass_id in (:ids) order by pass_id`,
      { ids: [pass.id, otherPass.id] },
    )
    expect(voided.map((row) => row.pass_id)).toEqual([pass.id, otherPass.id].sort())
    await until(() => pushesTo(device.pushToken).length >= 1, 'the voiding push')
  })

  test('a holder who removes their card unregisters their devices', async () => {
    const { pass, cardId } = await ownerWithPass()
    const device = newDevice()
    await registerDevice(server, certs.passTypeId, pass.id, device)
    const { deletePassCheckedByHolderDevice } = await import('#models/pass.server.ts')
    expect(await deletePassCheckedByHolderDevice({ passId: pass.id, cardId })).toBe(true)
    expect(await sql(`select 1 from apple_registrations where pass_id = :id`, { id: pass.id })).toEqual([])
  })
})
