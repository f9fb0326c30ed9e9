import crypto from 'node:crypto'
import { readSetting, storeSettingOnce } from '#models/setting.server.ts'

/**
 * The `authenticationToken` of an Apple Wallet pass (docs/product/wallets.md): base64url(HMAC-SHA256(wallet
 * secret, pass id)). The secret is generated once and kept in the settings table, so every process, every restart
 * and every rebuilt pass carries the same token, and nothing per pass is stored.
 */
const SETTING = 'wallet_secret'
let loaded: Promise<Buffer> | undefined

function walletSecret(): Promise<Buffer> {
  loaded ??= (async () => {
    let stored = await readSetting<string>(SETTING)
    if (!stored) {
      // Two processes generating at once keep the first one stored, and both read it back.
      await storeSettingOnce(SETTING, crypto.randomBytes(32).toString('base64'))
      stored = await readSetting<string>(SETTING)
    }
    return Buffer.from(stored!, 'base64')
  })().catch((error) => {
    loaded = undefined
    throw error
  })
  return loaded
}

/** base64url(HMAC-SHA256(secret, pass id)): the same for every rebuild of the pass. */
export const applePassTokenFor = (secret: Buffer | string, passId: string) =>
  crypto.createHmac('sha256', secret).update(passId).digest('base64url')

/** Compares two tokens in constant time (a token of another length is simply not the same). */
export function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && crypto.timingSafeEqual(left, right)
}

/** The pass's token, as its pass.json carries it. */
export async function applePassToken(passId: string): Promise<string> {
  return applePassTokenFor(await walletSecret(), passId)
}

/**
 * Whether `Authorization: ApplePass {token}` carries the pass's token, compared in constant time (a wrong guess
 * takes as long as a near miss).
 */
export async function isApplePassAuthorization(passId: string, header: string | null): Promise<boolean> {
  const given = /^ApplePass (\S{1,200})$/.exec(header ?? '')?.[1]
  return given !== undefined && sameToken(given, await applePassToken(passId))
}

/** Tests that replace the database call this so the next token reads the new one's secret. */
export function resetWalletSecretForTests() {
  loaded = undefined
}
