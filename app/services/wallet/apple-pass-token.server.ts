import crypto from 'node:crypto'
import { readSetting, storeSettingOnce } from '#models/setting.server.ts'

/**
 * The `authenticationToken` of an Apple Wallet pass (DECISIONS.md, "Wallet passes"): base64url(HMAC-SHA256(wallet
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

export const applePassTokenFor = (secret: Buffer, passId: string) =>
  crypto.createHmac('sha256', secret).update(passId).digest('base64url')

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
  const expected = Buffer.from(await applePassToken(passId))
  const actual = Buffer.from(given ?? '')
  // Lengths differ only for a malformed header: compare against itself so the time does not tell either.
  const same = crypto.timingSafeEqual(expected, actual.length === expected.length ? actual : expected)
  return Boolean(given) && actual.length === expected.length && same
}

/** Tests that replace the database call this so the next token reads the new one's secret. */
export function resetWalletSecretForTests() {
  loaded = undefined
}
