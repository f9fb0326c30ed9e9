import { describe, expect, test } from 'vitest'
import { parseEnv } from './env.server.ts'

/** The one-line message parseEnv throws for `source`. */
function problem(source: Record<string, string>) {
  try {
    parseEnv(source)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`parseEnv accepted ${JSON.stringify(source)}`)
}

describe('parseEnv', () => {
  test('an empty environment gets the documented defaults', () => {
    const env = parseEnv({})
    expect(env).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      APP_URL: 'http://localhost:3000',
      DATA_DIR: './data',
      MAIL_FROM: 'Stampwise <hello@localhost>',
      SUPPORT_EMAIL: 'support@localhost',
      GOOGLE_ISSUER: 'https://accounts.google.com',
      APPLE_ISSUER: 'https://appleid.apple.com',
      TRUST_PROXY: 0,
      RATE_LIMIT_FACTOR: 1,
      LOG_LEVEL: 'info',
      isProduction: false,
      pushAllowedHosts: [],
    })
    for (const name of ['DATABASE_URL', 'SESSION_SECRET', 'SMTP_URL', 'SENTRY_DSN', 'VAPID_PUBLIC_KEY'] as const) {
      expect(env[name], name).toBeUndefined()
    }
  })

  test('empty and blank values count as unset', () => {
    const env = parseEnv({ DATABASE_URL: '', SMTP_URL: '  ', APP_URL: '', SESSION_SECRET: ' ' })
    expect(env.DATABASE_URL).toBeUndefined()
    expect(env.SMTP_URL).toBeUndefined()
    expect(env.SESSION_SECRET).toBeUndefined()
    expect(env.APP_URL).toBe('http://localhost:3000')
  })

  test('an empty PORT, TRUST_PROXY or RATE_LIMIT_FACTOR means its default', () => {
    expect(parseEnv({ PORT: '' }).PORT).toBe(3000)
    expect(parseEnv({ PORT: ' ', TRUST_PROXY: '', RATE_LIMIT_FACTOR: '' })).toMatchObject({
      PORT: 3000,
      TRUST_PROXY: 0,
      RATE_LIMIT_FACTOR: 1,
    })
  })

  test('APP_URL follows PORT when unset, and never ends with a slash', () => {
    expect(parseEnv({ PORT: '8080' }).APP_URL).toBe('http://localhost:8080')
    expect(parseEnv({ PORT: ' 8080 ' }).PORT).toBe(8080)
    expect(parseEnv({ PORT: '8080', APP_URL: 'https://stamps.example.com/' }).APP_URL).toBe(
      'https://stamps.example.com',
    )
    expect(parseEnv({ APP_URL: 'https://example.com/stampwise///' }).APP_URL).toBe('https://example.com/stampwise')
    expect(parseEnv({ APP_URL: 'http://192.168.1.20:3000' }).APP_URL).toBe('http://192.168.1.20:3000')
  })

  test('DATABASE_URL takes postgres:// and postgresql://', () => {
    expect(parseEnv({ DATABASE_URL: 'postgres://u:p@db:5432/stampwise' }).DATABASE_URL).toBe(
      'postgres://u:p@db:5432/stampwise',
    )
    expect(parseEnv({ DATABASE_URL: 'postgresql://u@db/stampwise' }).DATABASE_URL).toBe('postgresql://u@db/stampwise')
  })

  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '3.5'],
    ['APP_URL', 'ftp://example.com'],
    ['APP_URL', 'not a url'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'localhost:5432'],
    ['DATA_DIR', ' '],
    ['SMTP_URL', 'http://mail.example.com'],
    ['MAIL_FROM', 'x'],
    ['NODE_ENV', 'staging'],
    ['GOOGLE_ISSUER', 'accounts.google.com'],
    ['APPLE_ISSUER', 'nope'],
    ['SENTRY_DSN', 'nope'],
    ['SUPPORT_EMAIL', 'support'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '11'],
    ['RATE_LIMIT_FACTOR', '0'],
    ['LOG_LEVEL', 'verbose'],
    ['GOOGLE_WALLET_ISSUER_ID', 'issuer-3388'],
    ['GOOGLE_WALLET_API_ORIGIN', 'ftp://walletobjects.googleapis.com'],
  ])('%s=%j gives one line that names the variable', (name, value) => {
    const message = problem({ [name]: value })
    expect(message).toMatch(new RegExp(`^Invalid configuration: ${name} \\S`))
    expect(message).not.toContain('\n')
  })

  test('several invalid values are all named, still on one line', () => {
    const message = problem({ PORT: 'abc', DATABASE_URL: 'mysql://x' })
    expect(message).toBe(
      'Invalid configuration: PORT Invalid input: expected number, received NaN; DATABASE_URL must be a postgres:// URL',
    )
  })

  test('SESSION_SECRET is required in production, and only there', () => {
    expect(problem({ NODE_ENV: 'production' })).toBe('Invalid configuration: SESSION_SECRET is required in production')
    expect(problem({ NODE_ENV: 'production', SESSION_SECRET: '   ' })).toMatch(
      /^Invalid configuration: SESSION_SECRET /,
    )
    const production = parseEnv({ NODE_ENV: 'production', SESSION_SECRET: 'old-secret,new-secret' })
    expect(production.isProduction).toBe(true)
    expect(production.SESSION_SECRET).toBe('old-secret,new-secret')
    expect(parseEnv({ NODE_ENV: 'development' }).SESSION_SECRET).toBeUndefined()
    expect(parseEnv({ NODE_ENV: 'test' }).isProduction).toBe(false)
  })

  test('VAPID keys come in pairs', () => {
    const message =
      'Invalid configuration: VAPID_PRIVATE_KEY VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must be set together'
    expect(problem({ VAPID_PUBLIC_KEY: 'public' })).toBe(message)
    expect(problem({ VAPID_PRIVATE_KEY: 'private' })).toBe(message)
    expect(problem({ VAPID_PUBLIC_KEY: 'public', VAPID_PRIVATE_KEY: ' ' })).toBe(message)
    expect(parseEnv({ VAPID_PUBLIC_KEY: 'public', VAPID_PRIVATE_KEY: 'private' })).toMatchObject({
      VAPID_PUBLIC_KEY: 'public',
      VAPID_PRIVATE_KEY: 'private',
    })
  })

  test('PUSH_ALLOWED_HOSTS is a comma-separated list of host names, optionally with a port', () => {
    expect(
      parseEnv({ PUSH_ALLOWED_HOSTS: ' Push.Example.com:8443 , ,localhost,127.0.0.1:9000 ' }).pushAllowedHosts,
    ).toEqual(['push.example.com:8443', 'localhost', '127.0.0.1:9000'])
    expect(parseEnv({ PUSH_ALLOWED_HOSTS: '' }).pushAllowedHosts).toEqual([])
    expect(parseEnv({ PUSH_ALLOWED_HOSTS: ',' }).pushAllowedHosts).toEqual([])
  })

  test('GOOGLE_WALLET_ISSUER_ID is digits; GOOGLE_WALLET_API_ORIGIN has a default and no trailing slash', () => {
    expect(parseEnv({}).GOOGLE_WALLET_ISSUER_ID).toBeUndefined()
    expect(parseEnv({ GOOGLE_WALLET_ISSUER_ID: ' ' }).GOOGLE_WALLET_ISSUER_ID).toBeUndefined()
    expect(parseEnv({ GOOGLE_WALLET_ISSUER_ID: ' 3388000000022222222 ' }).GOOGLE_WALLET_ISSUER_ID).toBe(
      '3388000000022222222',
    )
    for (const value of ['3388.000', '-3388', 'BCR2DN4T', '3388 000']) {
      expect(problem({ GOOGLE_WALLET_ISSUER_ID: value })).toBe(
        'Invalid configuration: GOOGLE_WALLET_ISSUER_ID must be the issuer id of the Google Pay & Wallet Console (digits)',
      )
    }
    expect(parseEnv({}).GOOGLE_WALLET_API_ORIGIN).toBe('https://walletobjects.googleapis.com')
    expect(parseEnv({ GOOGLE_WALLET_API_ORIGIN: '' }).GOOGLE_WALLET_API_ORIGIN).toBe(
      'https://walletobjects.googleapis.com',
    )
    expect(parseEnv({ GOOGLE_WALLET_API_ORIGIN: 'http://127.0.0.1:9000//' }).GOOGLE_WALLET_API_ORIGIN).toBe(
      'http://127.0.0.1:9000',
    )
  })

  test('paying by card: the secret key needs the webhook secret; the origin has a default; automatic tax is on or off', () => {
    const off = parseEnv({})
    expect(off.STRIPE_SECRET_KEY).toBeUndefined()
    expect(off).toMatchObject({ STRIPE_API_ORIGIN: 'https://api.stripe.com', STRIPE_AUTOMATIC_TAX: false })
    expect(problem({ STRIPE_SECRET_KEY: 'sk_live_abc' })).toBe(
      'Invalid configuration: STRIPE_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set (the signing secret of the webhook endpoint)',
    )
    expect(problem({ STRIPE_SECRET_KEY: 'pk_live_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' })).toMatch(
      /^Invalid configuration: STRIPE_SECRET_KEY must be a Stripe secret key/,
    )
    expect(problem({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'abc' })).toMatch(
      /^Invalid configuration: STRIPE_WEBHOOK_SECRET must be the webhook endpoint's signing secret/,
    )
    expect(problem({ STRIPE_AUTOMATIC_TAX: 'yes' })).toBe(
      'Invalid configuration: STRIPE_AUTOMATIC_TAX must be on or off',
    )
    const env = parseEnv({
      STRIPE_SECRET_KEY: 'rk_test_abc',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc',
      STRIPE_API_ORIGIN: 'http://127.0.0.1:12111/',
      STRIPE_AUTOMATIC_TAX: 'on',
    })
    expect(env).toMatchObject({ STRIPE_API_ORIGIN: 'http://127.0.0.1:12111', STRIPE_AUTOMATIC_TAX: true })
    expect(parseEnv({ STRIPE_AUTOMATIC_TAX: 'off' }).STRIPE_AUTOMATIC_TAX).toBe(false)
  })

  test('numbers are read from their text', () => {
    expect(parseEnv({ TRUST_PROXY: '2', RATE_LIMIT_FACTOR: '100' })).toMatchObject({
      TRUST_PROXY: 2,
      RATE_LIMIT_FACTOR: 100,
    })
  })
})
