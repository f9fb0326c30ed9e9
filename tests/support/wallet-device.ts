import crypto from 'node:crypto'
import { applePassToken } from '#app/services/wallet/apple-pass-token.server.ts'
import { sql } from './auth-api.ts'
import { type TestServer } from './test-server.ts'

/**
 * Cards, passes and Apple Wallet devices for the wallet tests: cards and passes made in SQL (the holder side that
 * creates them is another module's), devices registered through the pass web service, as Wallet registers them.
 */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
export const newShortCode = () => Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')

export async function createWalletCard(ownerId: string, { stampsRequired = 5, autoPush = true } = {}) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward, terms, auto_push)
     values (:ownerId, :slug, 'active', 'Coffee card', 'Corner Coffee', :stampsRequired, 'A free coffee',
       'One stamp per coffee', :autoPush)
     returning id`,
    { ownerId, slug: `card-${crypto.randomBytes(6).toString('hex')}`, stampsRequired, autoPush },
  )
  return card!.id
}

export async function createWalletPass(cardId: string, stamps = 0) {
  const shortCode = newShortCode()
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code, stamps) values (:cardId, :shortCode, :stamps) returning id`,
    { cardId, shortCode, stamps },
  )
  return { id: pass!.id, shortCode }
}

/** `Authorization: ApplePass {token}` of the pass, as its pass.json carries it. */
export const applePassAuthorization = async (passId: string) => `ApplePass ${await applePassToken(passId)}`

/** A device as Wallet names it, with a push token of its own. */
export const newDevice = () => ({
  deviceId: `device-${crypto.randomBytes(8).toString('hex')}`,
  pushToken: crypto.randomBytes(32).toString('hex'),
})

/** Registers the device for the pass through the web service; answers the status (201 new, 200 known). */
export async function registerDevice(
  server: TestServer,
  passTypeId: string,
  passId: string,
  device: { deviceId: string; pushToken: string },
) {
  const response = await fetch(
    `${server.baseUrl}/wallet/apple/v1/devices/${device.deviceId}/registrations/${passTypeId}/${passId}`,
    {
      method: 'POST',
      headers: { authorization: await applePassAuthorization(passId), 'content-type': 'application/json' },
      body: JSON.stringify({ pushToken: device.pushToken }),
    },
  )
  await response.arrayBuffer()
  return response.status
}

/** The pushes queued or sent for the device's token, as rows. */
export const applePushesOf = (pushToken: string) =>
  sql<{ status: string; attempts: number; notification_id: string | null; pass_id: string | null }>(
    `select status, attempts, notification_id, pass_id from apple_pushes where push_token = :pushToken order by id`,
    { pushToken },
  )
