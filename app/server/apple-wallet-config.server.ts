import crypto, { X509Certificate, type KeyObject } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { getEnv, type Env } from './env.server.ts'

/**
 * Apple Wallet's settings (docs/product/wallets.md, "When on"), read and checked once: Apple Wallet is on when
 * APPLE_PASS_TYPE_ID is set, and then a missing or mismatched credential stops the start with one line naming it,
 * instead of every pass download failing later (or, worse, passes that Wallet silently refuses).
 */

export type AppleWalletConfig = {
  passTypeId: string
  teamId: string
  certPem: string
  keyPem: string
  keyPassphrase?: string
  wwdrPem: string
  apns: { origin: string; keyId: string; privateKeyPem: string } | { origin: string; keyId?: undefined }
  certExpiresAt: Date
}

const REQUIRED = ['APPLE_TEAM_ID', 'APPLE_PASS_CERT', 'APPLE_PASS_KEY', 'APPLE_WWDR_CERT'] as const
type PemSetting = 'APPLE_PASS_CERT' | 'APPLE_PASS_KEY' | 'APPLE_WWDR_CERT' | 'APNS_PRIVATE_KEY'

/** The PEM text of a setting that holds either the text (env files often carry "\n" literally) or a file's path. */
function readPem(name: PemSetting, value: string): string {
  if (value.includes('-----BEGIN')) return `${value.replace(/\\n/g, '\n').trim()}\n`
  let text: string
  try {
    text = fs.readFileSync(path.resolve(value), 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    throw new Error(`${name} is neither PEM text nor a readable file (${value}: ${code})`)
  }
  if (!text.includes('-----BEGIN')) throw new Error(`${name} names a file that holds no PEM text (${value})`)
  return text
}

function readCertificate(name: 'APPLE_PASS_CERT' | 'APPLE_WWDR_CERT', value: string) {
  const pem = readPem(name, value)
  try {
    return { pem, cert: new X509Certificate(pem) }
  } catch {
    throw new Error(`${name} is not a PEM certificate`)
  }
}

function readPrivateKey(name: 'APPLE_PASS_KEY' | 'APNS_PRIVATE_KEY', pem: string, passphrase?: string): KeyObject {
  const encrypted = /ENCRYPTED/.test(pem)
  if (encrypted && !passphrase) {
    // Apple's .p8 APNs keys come unencrypted, and there is no setting for a passphrase of one.
    const fix = name === 'APPLE_PASS_KEY' ? 'set APPLE_PASS_KEY_PASSPHRASE' : 'use the .p8 file as Apple gives it'
    throw new Error(`${name} is encrypted: ${fix}`)
  }
  try {
    return crypto.createPrivateKey(encrypted ? { key: pem, passphrase } : { key: pem })
  } catch {
    if (encrypted) throw new Error(`APPLE_PASS_KEY_PASSPHRASE does not decrypt ${name}`)
    throw new Error(`${name} is not a PEM private key`)
  }
}

/** One attribute of a certificate's subject ("UID", "OU"), as node:crypto lists it one per line. */
function subjectAttribute(cert: X509Certificate, name: string) {
  const line = cert.subject.split('\n').find((entry) => entry.startsWith(`${name}=`))
  return line?.slice(name.length + 1)
}

function checkPassCertificate(env: Env, passTypeId: string, teamId: string) {
  const { pem: certPem, cert } = readCertificate('APPLE_PASS_CERT', env.APPLE_PASS_CERT!)
  const { pem: wwdrPem, cert: wwdr } = readCertificate('APPLE_WWDR_CERT', env.APPLE_WWDR_CERT!)
  const keyPem = readPem('APPLE_PASS_KEY', env.APPLE_PASS_KEY!)
  const key = readPrivateKey('APPLE_PASS_KEY', keyPem, env.APPLE_PASS_KEY_PASSPHRASE)
  // The signing library (node-forge) signs with RSA keys only, as Apple issues them.
  if (key.asymmetricKeyType !== 'rsa') throw new Error('APPLE_PASS_KEY is not an RSA key')
  if (!cert.checkPrivateKey(key)) throw new Error('APPLE_PASS_KEY does not match APPLE_PASS_CERT')
  const uid = subjectAttribute(cert, 'UID')
  if (uid !== passTypeId) {
    throw new Error(`APPLE_PASS_CERT is for pass type ${uid ?? '(none)'}, not APPLE_PASS_TYPE_ID ${passTypeId}`)
  }
  const team = subjectAttribute(cert, 'OU')
  if (team && team !== teamId) throw new Error(`APPLE_TEAM_ID ${teamId} is not the team of APPLE_PASS_CERT (${team})`)
  if (!cert.checkIssued(wwdr) || !cert.verify(wwdr.publicKey)) {
    throw new Error('APPLE_WWDR_CERT is not the intermediate that issued APPLE_PASS_CERT')
  }
  return { certPem, keyPem, wwdrPem, certExpiresAt: new Date(cert.validTo) }
}

function readApns(env: Env): AppleWalletConfig['apns'] {
  const origin = env.APNS_ORIGIN
  if (env.APNS_KEY_ID && !env.APNS_PRIVATE_KEY) throw new Error('APNS_PRIVATE_KEY is required when APNS_KEY_ID is set')
  if (!env.APNS_KEY_ID && env.APNS_PRIVATE_KEY) throw new Error('APNS_KEY_ID is required when APNS_PRIVATE_KEY is set')
  if (!env.APNS_KEY_ID || !env.APNS_PRIVATE_KEY) return { origin }
  const privateKeyPem = readPem('APNS_PRIVATE_KEY', env.APNS_PRIVATE_KEY)
  const key = readPrivateKey('APNS_PRIVATE_KEY', privateKeyPem)
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('APNS_PRIVATE_KEY is not an EC P-256 key (the .p8 file of an APNs key)')
  }
  return { origin, keyId: env.APNS_KEY_ID, privateKeyPem }
}

/** Apple Wallet's checked settings, or null when it is off; throws an Error whose message is one line. */
export function loadAppleWalletConfig(env: Env): AppleWalletConfig | null {
  const passTypeId = env.APPLE_PASS_TYPE_ID
  if (!passTypeId) return null
  const missing = REQUIRED.find((name) => !env[name])
  if (missing) throw new Error(`${missing} is required when APPLE_PASS_TYPE_ID is set`)
  const teamId = env.APPLE_TEAM_ID!
  const certificates = checkPassCertificate(env, passTypeId, teamId)
  const keyPassphrase = env.APPLE_PASS_KEY_PASSPHRASE
  return { passTypeId, teamId, ...certificates, ...(keyPassphrase ? { keyPassphrase } : {}), apns: readApns(env) }
}

// Kept for the Env object it was read from: resetEnvForTests() makes a new one, so the config is read again too.
let cached: { env: Env; config: AppleWalletConfig | null } | undefined

/** The process's Apple Wallet settings (null: off), checked on first use. */
export function getAppleWalletConfig(): AppleWalletConfig | null {
  const env = getEnv()
  if (cached?.env !== env) cached = { env, config: loadAppleWalletConfig(env) }
  return cached.config
}

export function resetAppleWalletConfigForTests() {
  cached = undefined
}

export type AppleWalletStatus = {
  on: boolean
  missing: string[]
  certExpiresAt: Date | null
  problem: string | null
  urlNotice: AppleWalletUrlNotice | null
}

export type AppleWalletUrlNotice = { level: 'warning' | 'note'; message: string }

/** localhost (and its subdomains), 127.0.0.0/8 and ::1: this computer, where tests run Wallet's service on http. */
function isLoopbackHost(hostname: string) {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '')
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '::1'
}

/**
 * Wallet on a device talks to the pass web service (APP_URL/wallet/apple) only over https: with Apple Wallet on and
 * an http APP_URL, passes install but never register nor update. A warning for any other host; for this computer
 * (tests, a developer's machine) only a note, as nothing is wrong there.
 */
export function appleWalletUrlNotice(env: Pick<Env, 'APP_URL' | 'APPLE_PASS_TYPE_ID'>): AppleWalletUrlNotice | null {
  if (!env.APPLE_PASS_TYPE_ID) return null
  const url = new URL(env.APP_URL)
  if (url.protocol === 'https:') return null
  if (isLoopbackHost(url.hostname)) {
    return {
      level: 'note',
      message:
        `Apple Wallet: APP_URL (${env.APP_URL}) is http on this computer: fine for tests, but Wallet on a phone ` +
        'talks only to an https address.',
    }
  }
  return {
    level: 'warning',
    message:
      `Apple Wallet: APP_URL (${env.APP_URL}) is not https, and Wallet on a phone talks only to an https address: ` +
      'passes can be added but never update. Serve Stampwise over https and set APP_URL to that address.',
  }
}

/** What /admin shows: which settings are missing, the certificate's expiry, and what is wrong. Never throws. */
export function appleWalletStatus(env: Env): AppleWalletStatus {
  const on = Boolean(env.APPLE_PASS_TYPE_ID)
  const missing = (['APPLE_PASS_TYPE_ID', ...REQUIRED] as const).filter((name) => !env[name])
  let certExpiresAt: Date | null = null
  try {
    if (env.APPLE_PASS_CERT)
      certExpiresAt = new Date(readCertificate('APPLE_PASS_CERT', env.APPLE_PASS_CERT).cert.validTo)
  } catch {
    // The problem line below says what is wrong with it.
  }
  let problem: string | null = null
  if (on) {
    try {
      loadAppleWalletConfig(env)
    } catch (error) {
      problem = (error as Error).message
    }
  }
  return { on, missing, certExpiresAt, problem, urlNotice: appleWalletUrlNotice(env) }
}

const DAY = 24 * 60 * 60 * 1000
export const CERT_WARNING_DAYS = 30

/** The warning to log (daily) while the pass certificate expires within 30 days or has expired; null otherwise. */
export function certificateExpiryWarning(config: AppleWalletConfig, now: Date = new Date()): string | null {
  const left = config.certExpiresAt.getTime() - now.getTime()
  if (left > CERT_WARNING_DAYS * DAY) return null
  const date = config.certExpiresAt.toISOString().slice(0, 10)
  if (left <= 0)
    return `Apple Wallet: the pass certificate (APPLE_PASS_CERT) expired on ${date}; Wallet refuses its passes`
  const days = Math.ceil(left / DAY)
  return `Apple Wallet: the pass certificate (APPLE_PASS_CERT) expires on ${date} (in ${days} day${days === 1 ? '' : 's'}); renew it in Apple Developer`
}
