import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest'
import { makeGoogleServiceAccount, TEST_GOOGLE_CLIENT_EMAIL } from '#tests/support/google-service-account.ts'
import { parseEnv, resetEnvForTests } from './env.server.ts'
import { getGoogleWalletConfig, googleWalletStatus, loadGoogleWalletConfig } from './google-wallet-config.server.ts'

const account = makeGoogleServiceAccount()
const TOKEN_URI = 'https://oauth2.googleapis.com/token'
const keyJson = account.json(TOKEN_URI)

/** The key file with some fields changed (undefined: left out). */
const keyWith = (changes: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(keyJson), ...changes })

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stampwise-google-key-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
function file(name: string, text: string) {
  const filePath = path.join(dir, name)
  fs.writeFileSync(filePath, text)
  return filePath
}

const settings = (serviceAccount: string | undefined) => ({
  GOOGLE_WALLET_ISSUER_ID: account.issuerId,
  GOOGLE_WALLET_SERVICE_ACCOUNT: serviceAccount,
})

function load(serviceAccount: string | undefined) {
  return loadGoogleWalletConfig(parseEnv(settings(serviceAccount)))
}

function problem(serviceAccount: string | undefined) {
  try {
    load(serviceAccount)
  } catch (error) {
    const message = (error as Error).message
    expect(message).not.toContain('\n')
    return message
  }
  throw new Error(`accepted ${serviceAccount?.slice(0, 60)}`)
}

describe('loadGoogleWalletConfig', () => {
  test('off (null) while GOOGLE_WALLET_ISSUER_ID is unset, whatever the key says', () => {
    expect(loadGoogleWalletConfig(parseEnv({}))).toBeNull()
    expect(loadGoogleWalletConfig(parseEnv({ GOOGLE_WALLET_ISSUER_ID: ' ', GOOGLE_WALLET_SERVICE_ACCOUNT: '{' }))).toBe(
      null,
    )
  })

  test('on with the key as JSON text: its e-mail, key, key id and token address; the API origin', () => {
    expect(load(keyJson)).toEqual({
      issuerId: account.issuerId,
      serviceAccount: {
        clientEmail: TEST_GOOGLE_CLIENT_EMAIL,
        privateKeyPem: account.privateKeyPem,
        privateKeyId: account.privateKeyId,
        tokenUri: TOKEN_URI,
      },
      apiOrigin: 'https://walletobjects.googleapis.com',
    })
    const local = loadGoogleWalletConfig(
      parseEnv({ ...settings(keyJson), GOOGLE_WALLET_API_ORIGIN: 'http://127.0.0.1:9000/' }),
    )
    expect(local?.apiOrigin).toBe('http://127.0.0.1:9000')
    // private_key_id is optional: without it the JWTs carry no kid.
    expect(load(keyWith({ private_key_id: undefined }))?.serviceAccount).not.toHaveProperty('privateKeyId')
  })

  test('on with the key as a path to the file Google Cloud gives (pretty-printed), relative or absolute', () => {
    const keyFile = file('stampwise-wallet.json', JSON.stringify(JSON.parse(keyJson), null, 2))
    expect(load(keyFile)?.serviceAccount).toEqual(load(keyJson)?.serviceAccount)
    expect(load(path.relative(process.cwd(), keyFile))?.serviceAccount.clientEmail).toBe(TEST_GOOGLE_CLIENT_EMAIL)
  })

  test('\\n written literally inside private_key, as env files carry it, is read as line breaks', () => {
    const escaped = keyWith({ private_key: account.privateKeyPem.replace(/\n/g, '\\n') })
    expect(escaped).toContain('\\\\n')
    expect(load(escaped)?.serviceAccount.privateKeyPem).toBe(account.privateKeyPem)
  })

  test('a one-line key whose \\n an env-file loader turned into line breaks (Docker Compose) is read too', () => {
    const expanded = keyJson.replace(/\\n/g, '\n')
    expect(expanded.split('\n').length).toBeGreaterThan(10)
    expect(load(expanded)?.serviceAccount.privateKeyPem).toBe(account.privateKeyPem)
  })

  test('one line naming GOOGLE_WALLET_SERVICE_ACCOUNT for each wrong key', () => {
    expect(problem(undefined)).toBe('GOOGLE_WALLET_SERVICE_ACCOUNT is required when GOOGLE_WALLET_ISSUER_ID is set')
    expect(problem('   ')).toBe('GOOGLE_WALLET_SERVICE_ACCOUNT is required when GOOGLE_WALLET_ISSUER_ID is set')
    expect(problem('/nowhere/stampwise-wallet.json')).toBe(
      'GOOGLE_WALLET_SERVICE_ACCOUNT is neither JSON text nor a readable file (/nowhere/stampwise-wallet.json: ENOENT)',
    )
    expect(problem(dir)).toBe(`GOOGLE_WALLET_SERVICE_ACCOUNT is neither JSON text nor a readable file (${dir}: EISDIR)`)
    const pemFile = file('key.pem', account.privateKeyPem)
    expect(problem(pemFile)).toBe(`GOOGLE_WALLET_SERVICE_ACCOUNT names a file that holds no JSON (${pemFile})`)
    expect(problem(file('cut.json', keyJson.slice(0, 200)))).toBe('GOOGLE_WALLET_SERVICE_ACCOUNT is not valid JSON')
    expect(problem('{"type": "service_account",')).toBe('GOOGLE_WALLET_SERVICE_ACCOUNT is not valid JSON')
    expect(problem('{} {}')).toBe('GOOGLE_WALLET_SERVICE_ACCOUNT is not valid JSON')

    // A user's credentials (gcloud auth application-default login) and an OAuth client are not service accounts.
    const authorizedUser = JSON.stringify({
      type: 'authorized_user',
      client_id: '764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com',
      client_secret: 'd-FL95Q19q7MQmFpd7hHD0Ty',
      refresh_token: '1//0e-not-a-real-token',
    })
    expect(problem(authorizedUser)).toBe(
      'GOOGLE_WALLET_SERVICE_ACCOUNT is not a service account key (its type is "authorized_user", not "service_account")',
    )
    const oauthClient = JSON.stringify({
      web: {
        client_id: '100000000000-abc.apps.googleusercontent.com',
        project_id: 'stampwise-test',
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: 'https://oauth2.googleapis.com/token',
        client_secret: 'GOCSPX-not-a-secret',
      },
    })
    expect(problem(oauthClient)).toBe(
      'GOOGLE_WALLET_SERVICE_ACCOUNT is not a service account key (its type is missing, not "service_account")',
    )
    expect(problem(file('client_secret.json', oauthClient))).toMatch(/its type is missing/)

    for (const field of ['client_email', 'private_key', 'token_uri']) {
      expect(problem(keyWith({ [field]: undefined }))).toBe(`GOOGLE_WALLET_SERVICE_ACCOUNT has no ${field}`)
      expect(problem(keyWith({ [field]: '' }))).toBe(`GOOGLE_WALLET_SERVICE_ACCOUNT has no ${field}`)
    }
    expect(problem(keyWith({ private_key: 'not a key' }))).toBe(
      "GOOGLE_WALLET_SERVICE_ACCOUNT's private_key is not a PEM private key",
    )
    const publicKeyOnly = keyWith({ private_key: account.publicKeyPem })
    expect(problem(publicKeyOnly)).toBe("GOOGLE_WALLET_SERVICE_ACCOUNT's private_key is not a PEM private key")
    const ecKey = crypto
      .generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString()
    expect(problem(keyWith({ private_key: ecKey }))).toBe(
      "GOOGLE_WALLET_SERVICE_ACCOUNT's private_key is not an RSA key",
    )
    for (const tokenUri of ['ftp://oauth2.googleapis.com/token', 'oauth2.googleapis.com/token']) {
      expect(problem(keyWith({ token_uri: tokenUri }))).toBe(
        "GOOGLE_WALLET_SERVICE_ACCOUNT's token_uri is not an http(s) address",
      )
    }
  })
})

describe('getGoogleWalletConfig', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    resetEnvForTests()
  })

  test('is read from the environment once, and again after resetEnvForTests', () => {
    vi.stubEnv('GOOGLE_WALLET_ISSUER_ID', account.issuerId)
    vi.stubEnv('GOOGLE_WALLET_SERVICE_ACCOUNT', keyJson)
    resetEnvForTests()
    const first = getGoogleWalletConfig()
    expect(first?.serviceAccount.clientEmail).toBe(TEST_GOOGLE_CLIENT_EMAIL)
    expect(getGoogleWalletConfig()).toBe(first)
    vi.stubEnv('GOOGLE_WALLET_ISSUER_ID', '')
    expect(getGoogleWalletConfig()).toBe(first)
    resetEnvForTests()
    expect(getGoogleWalletConfig()).toBeNull()
  })
})

describe('googleWalletStatus', () => {
  test('off: the settings that would turn it on; a key without an issuer id is named but not judged', () => {
    expect(googleWalletStatus(parseEnv({}))).toEqual({
      on: false,
      missing: ['GOOGLE_WALLET_ISSUER_ID', 'GOOGLE_WALLET_SERVICE_ACCOUNT'],
      serviceAccountEmail: null,
      problem: null,
    })
    expect(googleWalletStatus(parseEnv({ GOOGLE_WALLET_SERVICE_ACCOUNT: keyJson }))).toEqual({
      on: false,
      missing: ['GOOGLE_WALLET_ISSUER_ID'],
      serviceAccountEmail: TEST_GOOGLE_CLIENT_EMAIL,
      problem: null,
    })
    expect(googleWalletStatus(parseEnv({ GOOGLE_WALLET_SERVICE_ACCOUNT: '/nowhere.json' }))).toMatchObject({
      on: false,
      serviceAccountEmail: null,
      problem: null,
    })
  })

  test('on: the missing key, the service account, or what is wrong with its key, without throwing', () => {
    expect(googleWalletStatus(parseEnv(settings(undefined)))).toEqual({
      on: true,
      missing: ['GOOGLE_WALLET_SERVICE_ACCOUNT'],
      serviceAccountEmail: null,
      problem: null,
    })
    expect(googleWalletStatus(parseEnv(settings(keyJson)))).toEqual({
      on: true,
      missing: [],
      serviceAccountEmail: TEST_GOOGLE_CLIENT_EMAIL,
      problem: null,
    })
    expect(googleWalletStatus(parseEnv(settings(keyWith({ type: 'authorized_user' }))))).toEqual({
      on: true,
      missing: [],
      serviceAccountEmail: null,
      problem:
        'GOOGLE_WALLET_SERVICE_ACCOUNT is not a service account key (its type is "authorized_user", not "service_account")',
    })
  })
})
