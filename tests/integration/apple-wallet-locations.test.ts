import crypto from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startJobs } from '#app/main/jobs.server.ts'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { APPLE_PUSH_QUEUE, PUSH_RESUME_QUEUE } from '#app/server/job-queue.server.ts'
import { deliverApplePushes } from '#app/services/wallet/apple-push-delivery.server.ts'
import { APPLE_PASS_LOCATIONS_MAX } from '#app/utils/location-schemas.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { startApnsPeer, type ApnsPeer } from '#tests/support/apns-peer.ts'
import { makeAppleCerts } from '#tests/support/apple-certs.ts'
import { sql } from '#tests/support/auth-api.ts'
import { verifyPkpass } from '#tests/support/pkpass.ts'
import { createLocation } from '#tests/support/staff-member.ts'
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
 * The locations of an Apple Wallet pass (issue 20): pass.json carries the owner's located locations (at most 10,
 * oldest first, not removed), each with the lock-screen text; a change on /account/locations moves the pass's
 * modification time, pushes each registered device through APNs (a local HTTP/2 peer), and the web service then
 * answers the new pass where it answered 304 before. Google Wallet passes carry no locations (not required).
 */
const certs = makeAppleCerts()
Object.assign(process.env, certs.env())
resetEnvForTests()

let peer: ApnsPeer
beforeAll(async () => {
  peer = await startApnsPeer({
    topic: certs.passTypeId,
    teamId: certs.teamId,
    keyId: certs.apnsKeyId,
    publicKeyPem: crypto.createPublicKey(certs.apnsKeyPem).export({ type: 'spki', format: 'pem' }).toString(),
  })
  process.env.APNS_ORIGIN = peer.origin
  resetEnvForTests()
})
afterAll(async () => {
  await peer?.close()
})
const server = useTestServer()

type PassLocation = { latitude: number; longitude: number; relevantText: string }

/** The pass as Wallet fetches it from the web service (If-Modified-Since: 304 when unchanged). */
/** The owner's one location moves a little (an edit through the locations page); answers the page and the id. */
async function moveOnlyLocation(owner: { id: string; cookie: string }) {
  const [location] = await sql<{ id: string }>(`select id from locations where owner_id = :id`, { id: owner.id })
  const edit = { name: 'Baixa', address: 'Rua Augusta 1', latitude: '38.72', longitude: '-9.14' }
  const locationId = location!.id
  const moved = await server.post('/account/locations', { intent: 'edit', locationId, ...edit }, owner.cookie)
  return { moved, locationId }
}

async function fetchPass(passId: string, ifModifiedSince?: string) {
  const response = await server.fetch(`/wallet/apple/v1/passes/${certs.passTypeId}/${passId}`, {
    headers: {
      authorization: await applePassAuthorization(passId),
      ...(ifModifiedSince ? { 'if-modified-since': ifModifiedSince } : {}),
    },
  })
  const body = Buffer.from(await response.arrayBuffer())
  const passJson =
    response.status === 200 ? (verifyPkpass(body, certs.caPath).passJson as { locations?: PassLocation[] }) : undefined
  return { status: response.status, lastModified: response.headers.get('last-modified')!, passJson }
}

describe('the pass’s locations', () => {
  test('the located, not removed ones, oldest first, at most 10, each saying the business is nearby', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createWalletCard(owner.id)
    const pass = await createWalletPass(cardId)
    expect((await fetchPass(pass.id)).passJson!.locations).toBeUndefined()

    await createLocation(owner.id, { name: 'No position' })
    const removed = await createLocation(owner.id, { name: 'Removed' })
    await sql(`update locations set latitude = 1, longitude = 1, removed_at = now() where id = :id`, {
      id: removed.id,
    })
    // 12 located ones, made a second apart so "oldest first" is the order made.
    for (let index = 0; index < 12; index++)
      await sql(
        `insert into locations (owner_id, name, address, latitude, longitude, created_at)
         values (:ownerId, :name, 'Street', :latitude, :longitude, now() + make_interval(secs => :index))`,
        { ownerId: owner.id, name: `Shop ${index}`, latitude: 38.7 + index / 1000, longitude: -9.1 - index, index },
      )
    // Another owner's located shop is not on this pass.
    const other = await signedInOwner(server)
    await sql(`insert into locations (owner_id, name, address, latitude, longitude) values (:id, 'X', 'Y', 5, 5)`, {
      id: other.id,
    })

    const { passJson } = await fetchPass(pass.id)
    expect(passJson!.locations).toHaveLength(APPLE_PASS_LOCATIONS_MAX)
    expect(passJson!.locations!.map((location) => location.longitude)).toEqual(
      Array.from({ length: 10 }, (_, index) => -9.1 - index),
    )
    expect(passJson!.locations![0]).toEqual({
      latitude: 38.7,
      longitude: -9.1,
      relevantText: 'Corner Coffee is nearby — show your card',
    })
  })

  test('adding, editing or removing a location on the page refreshes the pass: a push to each device, then the new pass', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createWalletCard(owner.id)
    const otherCard = await createWalletCard(owner.id)
    const [pass, otherPass] = [await createWalletPass(cardId), await createWalletPass(otherCard)]
    const [phone, tablet] = [newDevice(), newDevice()]
    expect(await registerDevice(server, certs.passTypeId, pass.id, phone)).toBe(201)
    expect(await registerDevice(server, certs.passTypeId, otherPass.id, tablet)).toBe(201)
    await deliverApplePushes()
    const pushed = (device: { pushToken: string }) =>
      peer.requests().filter((request) => request.token === device.pushToken).length

    let seen = await fetchPass(pass.id)
    expect((await fetchPass(pass.id, seen.lastModified)).status).toBe(304)

    // Added with a position: both cards' passes change and their devices are pushed once.
    const added = await server.post(
      '/account/locations',
      { intent: 'add', name: 'Baixa', address: 'Rua Augusta 1', latitude: '38,7101', longitude: '-9,137' },
      owner.cookie,
    )
    expect(added.status).toBe(302)
    expect((await applePushesOf(phone.pushToken)).map((push) => push.status)).toEqual(['pending'])
    expect(await applePushesOf(tablet.pushToken)).toHaveLength(1)
    await deliverApplePushes()
    expect([pushed(phone), pushed(tablet)]).toEqual([1, 1])
    let next = await fetchPass(pass.id, seen.lastModified)
    expect(next.status).toBe(200)
    expect(next.passJson!.locations).toEqual([
      { latitude: 38.7101, longitude: -9.137, relevantText: 'Corner Coffee is nearby — show your card' },
    ])
    expect(Date.parse(next.lastModified)).toBeGreaterThan(Date.parse(seen.lastModified))
    seen = next

    // Moved.
    const { moved, locationId } = await moveOnlyLocation(owner)
    expect(moved.status).toBe(302)
    await deliverApplePushes()
    expect(pushed(phone)).toBe(2)
    next = await fetchPass(pass.id, seen.lastModified)
    expect(next.status).toBe(200)
    expect(next.passJson!.locations!.map(({ latitude, longitude }) => [latitude, longitude])).toEqual([[38.72, -9.14]])
    seen = next

    // Removed: the pass carries none again.
    expect((await server.post('/account/locations', { intent: 'remove', locationId }, owner.cookie)).status).toBe(302)
    await deliverApplePushes()
    expect(pushed(phone)).toBe(3)
    next = await fetchPass(pass.id, seen.lastModified)
    expect(next.status).toBe(200)
    expect(next.passJson!.locations).toBeUndefined()
  })
})

describe('with the job queue running, as in the server', () => {
  let jobs: Awaited<ReturnType<typeof startJobs>>
  beforeAll(async () => {
    jobs = await startJobs()
    // Without the minute's resume job only the page's own wake-up can send the pushes: the startup's resume job
    // runs out first, so nothing it queued is left to send.
    await jobs.boss.unschedule(PUSH_RESUME_QUEUE)
    await waitFor(async () => (await unfinishedJobs()) === 0, 'the startup jobs')
  })
  afterAll(async () => {
    await jobs?.stop()
  })

  const unfinishedJobs = async () =>
    (
      await sql<{ count: number }>(
        `select count(*)::int as count from pgboss.job
         where name in (:queues) and state in ('created', 'retry', 'active')`,
        { queues: [APPLE_PUSH_QUEUE, PUSH_RESUME_QUEUE] },
      )
    )[0]!.count

  async function waitFor(done: () => Promise<boolean>, what: string, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  test('adding, editing or removing a location wakes the push job: each device is pushed at once', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createWalletCard(owner.id)
    const pass = await createWalletPass(cardId)
    const phone = newDevice()
    expect(await registerDevice(server, certs.passTypeId, pass.id, phone)).toBe(201)
    const pushed = () => peer.requests().filter((request) => request.token === phone.pushToken).length
    await waitFor(async () => (await unfinishedJobs()) === 0, 'the registration')
    const before = pushed()

    const added = await server.post(
      '/account/locations',
      { intent: 'add', name: 'Baixa', address: 'Rua Augusta 1', latitude: '38.71', longitude: '-9.13' },
      owner.cookie,
    )
    expect(added.status).toBe(302)
    await waitFor(async () => pushed() === before + 1, 'the push after adding')
    const { moved, locationId } = await moveOnlyLocation(owner)
    expect(moved.status).toBe(302)
    await waitFor(async () => pushed() === before + 2, 'the push after editing')
    expect((await server.post('/account/locations', { intent: 'remove', locationId }, owner.cookie)).status).toBe(302)
    await waitFor(async () => pushed() === before + 3, 'the push after removing')
  })
})
