import { getEnv } from '#app/server/env.server.ts'
import { getGoogleWalletConfig, type GoogleWalletConfig } from '#app/server/google-wallet-config.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { getGooglePassRow, recordGoogleWalletClass, recordGoogleWalletObject } from '#models/google-wallet.server.ts'
import { googleError, googleWalletClientFor, type GoogleWalletClient } from './google-wallet-client.server.ts'
import { googleClassId, googleObjectId, loyaltyClassFor, loyaltyObjectFor } from './google-wallet-objects.server.ts'

/**
 * 'Save to Google Wallet' (docs/product/wallets.md, "Google pass"): the card's class and the pass's object are made at
 * Google the first time a holder asks (insert; 409 means another request or an earlier life made it: update it),
 * recorded, and the holder is sent to Google's save page with a JWT naming the object. Afterwards the link only signs a
 * JWT.
 */
export type GoogleSaveResult =
  | { status: 'ok'; url: string }
  | { status: 'not-found' }
  /** Google could not be reached or refused: the holder is told, and may try again later. */
  | { status: 'unavailable' }

type Resource = 'loyaltyClass' | 'loyaltyObject'

/** Inserts the resource; when it exists already (409), updates it to what it should show now. */
async function insertOrUpdate(client: GoogleWalletClient, resource: Resource, body: { id?: string }) {
  const inserted = await client.request('POST', resource, body)
  if (inserted.status === 200) return true
  if (inserted.status === 409) {
    const updated = await client.request('PUT', `${resource}/${encodeURIComponent(body.id!)}`, body)
    if (updated.status === 200) return true
    logger.warn({ resource, id: body.id, error: googleError(updated) }, 'Google Wallet refused an update')
    return false
  }
  // 4xx other than 409 is about us (a setting, a field): the operator must look; 5xx and no answer are Google's.
  const log = inserted.status >= 400 && inserted.status < 500 ? logger.error : logger.warn
  log.call(logger, { resource, id: body.id, error: googleError(inserted) }, 'Google Wallet refused an insert')
  return false
}

export async function googleWalletSave(
  passId: string,
  config: GoogleWalletConfig | null = getGoogleWalletConfig(),
): Promise<GoogleSaveResult> {
  if (!config) return { status: 'not-found' }
  const pass = await getGooglePassRow(passId)
  if (!pass) return { status: 'not-found' }
  const client = googleWalletClientFor(config)
  const appUrl = getEnv().APP_URL
  const names = { issuerId: config.issuerId, appUrl }
  if (!pass.hasClass) {
    if (!(await insertOrUpdate(client, 'loyaltyClass', loyaltyClassFor(pass, names)))) return { status: 'unavailable' }
    await recordGoogleWalletClass(pass.cardId)
  }
  if (pass.objectState !== 'active') {
    if (!(await insertOrUpdate(client, 'loyaltyObject', loyaltyObjectFor(pass, pass, names))))
      return { status: 'unavailable' }
    if (!(await recordGoogleWalletObject(pass))) return { status: 'not-found' }
  }
  const jwt = await client.saveJwt({
    typ: 'savetowallet',
    origins: [appUrl],
    payload: {
      loyaltyObjects: [
        { id: googleObjectId(config.issuerId, pass.passId), classId: googleClassId(config.issuerId, pass.cardId) },
      ],
    },
  })
  return { status: 'ok', url: `https://pay.google.com/gp/v/save/${jwt}` }
}
