import path from 'node:path'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { makeAppleCerts, makeExpiringCert, makeOtherKey, makePassCert } from '#tests/support/apple-certs.ts'
import {
  appleWalletStatus,
  appleWalletUrlNotice,
  certificateExpiryWarning,
  getAppleWalletConfig,
  loadAppleWalletConfig,
} from './apple-wallet-config.server.ts'
import { parseEnv, resetEnvForTests } from './env.server.ts'

const certs = makeAppleCerts()

function load(settings: Record<string, string | undefined>) {
  return loadAppleWalletConfig(parseEnv({ ...certs.env(), ...settings }))
}

function problem(settings: Record<string, string | undefined>) {
  try {
    load(settings)
  } catch (error) {
    const message = (error as Error).message
    expect(message).not.toContain('\n')
    return message
  }
  throw new Error(`accepted ${JSON.stringify(Object.keys(settings))}`)
}

describe('loadAppleWalletConfig', () => {
  test('off (null) while APPLE_PASS_TYPE_ID is unset, whatever else is set', () => {
    expect(loadAppleWalletConfig(parseEnv({}))).toBeNull()
    expect(load({ APPLE_PASS_TYPE_ID: '', APPLE_PASS_CERT: 'nonsense' })).toBeNull()
  })

  test('reads PEM text, PEM text with literal \\n, and file paths', () => {
    const config = load({})!
    expect(config).toMatchObject({ passTypeId: certs.passTypeId, teamId: certs.teamId, certPem: certs.certPem })
    expect(config.apns).toEqual({
      origin: 'https://api.push.apple.com',
      keyId: certs.apnsKeyId,
      privateKeyPem: certs.apnsKeyPem,
    })
    expect(config.certExpiresAt.getTime()).toBeGreaterThan(Date.now() + 300 * 24 * 3600 * 1000)

    const escaped = load({ APPLE_PASS_KEY: certs.keyPem.trim().replace(/\n/g, '\\n') })!
    expect(escaped.keyPem).toBe(certs.keyPem)
    const fromFiles = load({
      APPLE_PASS_CERT: path.join(certs.dir, 'pass.pem'),
      APPLE_PASS_KEY: path.join(certs.dir, 'key.pem'),
      APPLE_WWDR_CERT: path.join(certs.dir, 'wwdr.pem'),
      APNS_PRIVATE_KEY: path.join(certs.dir, 'apns.p8'),
    })!
    expect(fromFiles.wwdrPem).toBe(certs.wwdrPem)
    expect(fromFiles.apns.keyId).toBe(certs.apnsKeyId)
  })

  test('without APNs keys the pass certificate authenticates; APNS_ORIGIN is kept', () => {
    const config = load({
      APNS_KEY_ID: undefined,
      APNS_PRIVATE_KEY: undefined,
      APNS_ORIGIN: 'https://127.0.0.1:8443/',
    })!
    expect(config.apns).toEqual({ origin: 'https://127.0.0.1:8443' })
  })

  test('a passphrase-protected key needs its passphrase', () => {
    const config = load({ APPLE_PASS_KEY: certs.encryptedKeyPem, APPLE_PASS_KEY_PASSPHRASE: certs.passphrase })!
    expect(config.keyPassphrase).toBe(certs.passphrase)
    expect(problem({ APPLE_PASS_KEY: certs.encryptedKeyPem })).toBe(
      'APPLE_PASS_KEY is encrypted: set APPLE_PASS_KEY_PASSPHRASE',
    )
    expect(problem({ APPLE_PASS_KEY: certs.encryptedKeyPem, APPLE_PASS_KEY_PASSPHRASE: 'wrong' })).toBe(
      'APPLE_PASS_KEY_PASSPHRASE does not decrypt APPLE_PASS_KEY',
    )
  })

  test('one line naming each wrong setting', () => {
    for (const name of ['APPLE_TEAM_ID', 'APPLE_PASS_CERT', 'APPLE_PASS_KEY', 'APPLE_WWDR_CERT']) {
      expect(problem({ [name]: undefined })).toBe(`${name} is required when APPLE_PASS_TYPE_ID is set`)
    }
    expect(problem({ APPLE_PASS_CERT: '/nowhere/pass.pem' })).toBe(
      'APPLE_PASS_CERT is neither PEM text nor a readable file (/nowhere/pass.pem: ENOENT)',
    )
    expect(problem({ APPLE_WWDR_CERT: path.join(certs.dir, 'extensions.cnf') })).toMatch(
      /^APPLE_WWDR_CERT names a file that holds no PEM text/,
    )
    expect(problem({ APPLE_PASS_CERT: certs.keyPem })).toBe('APPLE_PASS_CERT is not a PEM certificate')
    expect(problem({ APPLE_WWDR_CERT: '-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----' })).toBe(
      'APPLE_WWDR_CERT is not a PEM certificate',
    )
    expect(problem({ APPLE_PASS_KEY: certs.certPem })).toBe('APPLE_PASS_KEY is not a PEM private key')
    expect(problem({ APPLE_PASS_KEY: makeOtherKey('rsa') })).toBe('APPLE_PASS_KEY does not match APPLE_PASS_CERT')
    expect(problem({ APPLE_PASS_KEY: certs.apnsKeyPem })).toBe('APPLE_PASS_KEY is not an RSA key')
    expect(problem({ APPLE_PASS_TYPE_ID: 'pass.com.example.other' })).toBe(
      'APPLE_PASS_CERT is for pass type pass.test.stampwise, not APPLE_PASS_TYPE_ID pass.com.example.other',
    )
    expect(problem({ APPLE_PASS_CERT: makePassCert({ passTypeId: 'pass.other' }) })).toMatch(/for pass type pass.other/)
    expect(problem({ APPLE_TEAM_ID: 'OTHERTEAM1' })).toBe(
      'APPLE_TEAM_ID OTHERTEAM1 is not the team of APPLE_PASS_CERT (TEAM123456)',
    )
    expect(problem({ APPLE_WWDR_CERT: certs.caPem })).toBe(
      'APPLE_WWDR_CERT is not the intermediate that issued APPLE_PASS_CERT',
    )
    expect(problem({ APNS_PRIVATE_KEY: undefined })).toBe('APNS_PRIVATE_KEY is required when APNS_KEY_ID is set')
    expect(problem({ APNS_KEY_ID: undefined })).toBe('APNS_KEY_ID is required when APNS_PRIVATE_KEY is set')
    expect(problem({ APNS_PRIVATE_KEY: makeOtherKey('ec-p384') })).toMatch(/^APNS_PRIVATE_KEY is not an EC P-256 key/)
    expect(problem({ APNS_PRIVATE_KEY: certs.keyPem })).toMatch(/^APNS_PRIVATE_KEY is not an EC P-256 key/)
    expect(problem({ APNS_PRIVATE_KEY: certs.encryptedKeyPem })).toBe(
      'APNS_PRIVATE_KEY is encrypted: use the .p8 file as Apple gives it',
    )
    expect(problem({ APNS_PRIVATE_KEY: 'garbage' })).toMatch(
      /^APNS_PRIVATE_KEY is neither PEM text nor a readable file/,
    )
  })
})

describe('getAppleWalletConfig', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    resetEnvForTests()
  })

  test('is read from the environment once, and again after resetEnvForTests', () => {
    for (const [name, value] of Object.entries(certs.env())) vi.stubEnv(name, value)
    resetEnvForTests()
    const first = getAppleWalletConfig()
    expect(first?.passTypeId).toBe(certs.passTypeId)
    expect(getAppleWalletConfig()).toBe(first)
    vi.stubEnv('APPLE_PASS_TYPE_ID', '')
    expect(getAppleWalletConfig()).toBe(first)
    resetEnvForTests()
    expect(getAppleWalletConfig()).toBeNull()
  })
})

describe('appleWalletStatus', () => {
  test('off: every setting that would turn it on', () => {
    expect(appleWalletStatus(parseEnv({ APPLE_TEAM_ID: 'TEAM123456' }))).toEqual({
      on: false,
      missing: ['APPLE_PASS_TYPE_ID', 'APPLE_PASS_CERT', 'APPLE_PASS_KEY', 'APPLE_WWDR_CERT'],
      certExpiresAt: null,
      problem: null,
      urlNotice: null,
    })
  })

  test('on: the expiry, and the problem without throwing', () => {
    const good = appleWalletStatus(parseEnv(certs.env()))
    expect(good).toMatchObject({ on: true, missing: [], problem: null })
    expect(good.certExpiresAt).toBeInstanceOf(Date)
    const bad = appleWalletStatus(parseEnv({ ...certs.env(), APPLE_PASS_KEY: undefined, APPLE_PASS_CERT: 'x' }))
    expect(bad).toMatchObject({ on: true, missing: ['APPLE_PASS_KEY'], certExpiresAt: null })
    expect(bad.problem).toBe('APPLE_PASS_KEY is required when APPLE_PASS_TYPE_ID is set')
  })
})

describe('certificateExpiryWarning', () => {
  test('warns within 30 days of expiry and after it, not before', () => {
    const config = load({ APPLE_PASS_CERT: makeExpiringCert(10) })!
    expect(certificateExpiryWarning(config)).toMatch(
      /^Apple Wallet: the pass certificate \(APPLE_PASS_CERT\) expires on \d{4}-\d\d-\d\d \(in 10 days\)/,
    )
    const expires = config.certExpiresAt.getTime()
    expect(certificateExpiryWarning(config, new Date(expires - 31 * 24 * 3600 * 1000))).toBeNull()
    expect(certificateExpiryWarning(config, new Date(expires - 29 * 24 * 3600 * 1000))).toMatch(/in 29 days/)
    expect(certificateExpiryWarning(config, new Date(expires + 1000))).toMatch(/expired on/)
    expect(certificateExpiryWarning(load({})!)).toBeNull()
  })
})

describe('appleWalletUrlNotice (Wallet on a phone talks only to https)', () => {
  const notice = (APP_URL: string, APPLE_PASS_TYPE_ID: string | undefined = 'pass.test.stampwise') =>
    appleWalletUrlNotice({ APP_URL, APPLE_PASS_TYPE_ID })

  test('nothing with Apple Wallet off, or with an https APP_URL', () => {
    expect(appleWalletUrlNotice({ APP_URL: 'http://stamps.example.com', APPLE_PASS_TYPE_ID: undefined })).toBeNull()
    expect(notice('https://stamps.example.com')).toBeNull()
    expect(notice('https://localhost:3000')).toBeNull()
  })

  test('a warning for http on any other host, naming the address and what to do', () => {
    for (const url of ['http://stamps.example.com', 'http://192.168.1.20:3000', 'http://[2001:db8::1]:3000']) {
      const found = notice(url)
      expect(found?.level, url).toBe('warning')
      expect(found?.message).toContain(`APP_URL (${url}) is not https`)
      expect(found?.message).toMatch(/set APP_URL/)
    }
    // A name that only starts like loopback is not loopback.
    expect(notice('http://127.0.0.1.example.com')?.level).toBe('warning')
    expect(notice('http://localhost.example.com')?.level).toBe('warning')
  })

  test('only a note for http on this computer (tests, development)', () => {
    for (const url of ['http://localhost:3000', 'http://127.0.0.1:5400', 'http://[::1]:3000', 'http://app.localhost']) {
      expect(notice(url)?.level, url).toBe('note')
    }
  })
})
