import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { getEnv, type Env } from './env.server.ts'

/**
 * Google Wallet's settings (docs/product/wallets.md, "When on"), read and checked once: Google Wallet is on when
 * GOOGLE_WALLET_ISSUER_ID is set, and then GOOGLE_WALLET_SERVICE_ACCOUNT must be a service account's JSON key (the
 * text, or a path to the file Google Cloud gives). A wrong one stops the start with one line naming it, instead of
 * every 'Save to Google Wallet' failing later.
 */

export type GoogleServiceAccount = {
  clientEmail: string
  privateKeyPem: string
  /** The key's id, sent as the JWT header's `kid` so Google picks the right public key. */
  privateKeyId?: string
  /** Where the JWT-bearer grant is asked for (the key file's token_uri). */
  tokenUri: string
}

export type GoogleWalletConfig = {
  issuerId: string
  serviceAccount: GoogleServiceAccount
  /** GOOGLE_WALLET_API_ORIGIN, without a trailing slash. */
  apiOrigin: string
}

const SETTING = 'GOOGLE_WALLET_SERVICE_ACCOUNT'

/** The key's JSON text: the setting itself when it holds JSON, otherwise the file it names. */
function readKeyText(value: string): string {
  if (value.trimStart().startsWith('{')) return value
  let text: string
  try {
    text = fs.readFileSync(path.resolve(value), 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    throw new Error(`${SETTING} is neither JSON text nor a readable file (${value}: ${code})`)
  }
  if (!text.trimStart().startsWith('{')) throw new Error(`${SETTING} names a file that holds no JSON (${value})`)
  return text
}

/** The checked service account of the key text; throws an Error whose message is one line. */
export function readServiceAccount(value: string): GoogleServiceAccount {
  let key: Record<string, unknown>
  try {
    const text = readKeyText(value)
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      // A key pasted on one line whose "\n"s an env-file loader turned into line breaks (Docker Compose does, in
      // double quotes): the breaks can only be inside the private key's string.
      if (!/\n/.test(text.trim())) throw error
      parsed = JSON.parse(text.trim().replace(/\r?\n/g, '\\n'))
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object')
    key = parsed as Record<string, unknown>
  } catch (error) {
    if ((error as Error).message.startsWith(SETTING)) throw error
    throw new Error(`${SETTING} is not valid JSON`)
  }
  if (key.type !== 'service_account') {
    const type = typeof key.type === 'string' ? `"${key.type}"` : 'missing'
    throw new Error(`${SETTING} is not a service account key (its type is ${type}, not "service_account")`)
  }
  for (const field of ['client_email', 'private_key', 'token_uri'] as const) {
    if (typeof key[field] !== 'string' || !key[field]) throw new Error(`${SETTING} has no ${field}`)
  }
  const privateKeyPem = (key.private_key as string).replace(/\\n/g, '\n')
  let privateKey: crypto.KeyObject
  try {
    privateKey = crypto.createPrivateKey(privateKeyPem)
  } catch {
    throw new Error(`${SETTING}'s private_key is not a PEM private key`)
  }
  // The grant's assertion and the save link's JWT are RS256, as Google signs its service account keys.
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error(`${SETTING}'s private_key is not an RSA key`)
  const tokenUri = key.token_uri as string
  if (!URL.canParse(tokenUri) || !/^https?:$/.test(new URL(tokenUri).protocol)) {
    throw new Error(`${SETTING}'s token_uri is not an http(s) address`)
  }
  const privateKeyId = typeof key.private_key_id === 'string' && key.private_key_id ? key.private_key_id : undefined
  return { clientEmail: key.client_email as string, privateKeyPem, tokenUri, ...(privateKeyId ? { privateKeyId } : {}) }
}

/** Google Wallet's checked settings, or null when it is off; throws an Error whose message is one line. */
export function loadGoogleWalletConfig(env: Env): GoogleWalletConfig | null {
  const issuerId = env.GOOGLE_WALLET_ISSUER_ID
  if (!issuerId) return null
  if (!env.GOOGLE_WALLET_SERVICE_ACCOUNT) throw new Error(`${SETTING} is required when GOOGLE_WALLET_ISSUER_ID is set`)
  return {
    issuerId,
    serviceAccount: readServiceAccount(env.GOOGLE_WALLET_SERVICE_ACCOUNT),
    apiOrigin: env.GOOGLE_WALLET_API_ORIGIN,
  }
}

// Kept for the Env object it was read from: resetEnvForTests() makes a new one, so the config is read again too.
let cached: { env: Env; config: GoogleWalletConfig | null } | undefined

/** The process's Google Wallet settings (null: off), checked on first use. */
export function getGoogleWalletConfig(): GoogleWalletConfig | null {
  const env = getEnv()
  if (cached?.env !== env) cached = { env, config: loadGoogleWalletConfig(env) }
  return cached.config
}

export type GoogleWalletStatus = {
  on: boolean
  missing: string[]
  serviceAccountEmail: string | null
  problem: string | null
}

/** What /admin shows: which settings are missing, the service account, and what is wrong. Never throws. */
export function googleWalletStatus(env: Env): GoogleWalletStatus {
  const on = Boolean(env.GOOGLE_WALLET_ISSUER_ID)
  const missing = (['GOOGLE_WALLET_ISSUER_ID', SETTING] as const).filter((name) => !env[name])
  let serviceAccountEmail: string | null = null
  let problem: string | null = null
  if (env.GOOGLE_WALLET_SERVICE_ACCOUNT) {
    try {
      serviceAccountEmail = readServiceAccount(env.GOOGLE_WALLET_SERVICE_ACCOUNT).clientEmail
    } catch (error) {
      if (on) problem = (error as Error).message
    }
  }
  return { on, missing, serviceAccountEmail, problem }
}
