import { afterAll, beforeAll, expect, test } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { deliverApplePushes } from '#app/services/wallet/apple-push-delivery.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { startApnsPeer, type ApnsPeer } from '#tests/support/apns-peer.ts'
import { makeAppleCerts } from '#tests/support/apple-certs.ts'
import { sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'
import { createWalletCard, createWalletPass, newDevice, registerDevice } from '#tests/support/wallet-device.ts'

/**
 * Without APNS_KEY_ID and APNS_PRIVATE_KEY, APNs is reached with the Pass Type ID certificate as the TLS client
 * certificate (docs/product/wallets.md, "Apple updates"): the local peer requires one signed by the test WWDR, and
 * refuses a connection without it.
 */
const certs = makeAppleCerts()
const { APNS_KEY_ID: _keyId, APNS_PRIVATE_KEY: _key, ...settings } = certs.env()
Object.assign(process.env, settings)
delete process.env.APNS_KEY_ID
delete process.env.APNS_PRIVATE_KEY
resetEnvForTests()

let peer: ApnsPeer
beforeAll(async () => {
  peer = await startApnsPeer({ topic: certs.passTypeId, clientCaPem: `${certs.wwdrPem}\n${certs.caPem}` })
  process.env.APNS_ORIGIN = peer.origin
  resetEnvForTests()
})
afterAll(async () => {
  await peer?.close()
})
const server = useTestServer()

test('a stamp reaches the device with the pass certificate as the client certificate, and no provider token', async () => {
  const owner = await createOwner()
  const cardId = await createWalletCard(owner.id)
  const pass = await createWalletPass(cardId)
  const device = newDevice()
  expect(await registerDevice(server, certs.passTypeId, pass.id, device)).toBe(201)
  await sql(`update passes set stamps = stamps + 1 where id = :id`, { id: pass.id })
  expect((await deliverApplePushes()).sent).toBe(1)
  const [request] = peer.requests()
  expect(request).toMatchObject({ token: device.pushToken, authorizedBy: 'certificate', status: 200 })
  expect(request!.headers.authorization).toBeUndefined()
  expect(peer.violations()).toEqual([])
})
