import { z } from 'zod'

/**
 * Every setting Stampwise reads from the environment (docs/product/configuration.md).
 * Parsed once at start: a wrong value stops the process with one clear line instead of
 * failing later in the middle of a request.
 */
const optional = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional()

/** A number setting: blank counts as unset (so its default applies), anything else must parse. */
const numberSetting = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), schema)

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: numberSetting(z.coerce.number().int().min(0).max(65535).default(3000)),
    // The address to listen on; unset: every address (a container needs that), with a warning outside production.
    HOST: optional,
    APP_URL: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
    DATABASE_URL: optional.pipe(z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional()),
    DATA_DIR: z.string().trim().min(1).default('./data'),
    SESSION_SECRET: optional,
    SMTP_URL: optional.pipe(z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// URL' }).optional()),
    MAIL_FROM: z.string().trim().min(3).default('Stampwise <hello@localhost>'),
    VAPID_PUBLIC_KEY: optional,
    VAPID_PRIVATE_KEY: optional,
    GOOGLE_CLIENT_ID: optional,
    GOOGLE_CLIENT_SECRET: optional,
    GOOGLE_ISSUER: z.url().default('https://accounts.google.com'),
    APPLE_CLIENT_ID: optional,
    APPLE_TEAM_ID: optional,
    APPLE_KEY_ID: optional,
    APPLE_PRIVATE_KEY: optional,
    APPLE_ISSUER: z.url().default('https://appleid.apple.com'),
    // Apple Wallet (docs/product/wallets.md): on when APPLE_PASS_TYPE_ID is set; the PEM settings take the text
    // itself or a path to a file, and are checked by app/server/apple-wallet-config.server.ts.
    APPLE_PASS_TYPE_ID: optional,
    APPLE_PASS_CERT: optional,
    APPLE_PASS_KEY: optional,
    // Not trimmed: a passphrase may begin or end with a space.
    APPLE_PASS_KEY_PASSPHRASE: z
      .string()
      .transform((value) => (value === '' ? undefined : value))
      .optional(),
    APPLE_WWDR_CERT: optional,
    APNS_KEY_ID: optional,
    APNS_PRIVATE_KEY: optional,
    APNS_ORIGIN: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
    // Google Wallet: on when GOOGLE_WALLET_ISSUER_ID is set; the service account's JSON key (the text or a path) is
    // checked by app/server/google-wallet-config.server.ts.
    GOOGLE_WALLET_ISSUER_ID: optional.pipe(
      z
        .string()
        .regex(/^\d{1,30}$/, 'must be the issuer id of the Google Pay & Wallet Console (digits)')
        .optional(),
    ),
    GOOGLE_WALLET_SERVICE_ACCOUNT: optional,
    GOOGLE_WALLET_API_ORIGIN: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
    PUSH_ALLOWED_HOSTS: optional,
    SENTRY_DSN: optional.pipe(z.url().optional()),
    SUPPORT_EMAIL: z.email().default('support@localhost'),
    TRUST_PROXY: numberSetting(z.coerce.number().int().min(0).max(10).default(0)),
    RATE_LIMIT_FACTOR: numberSetting(z.coerce.number().positive().default(1)),
    METRICS_TOKEN: optional,
    PAYMENT_INSTRUCTIONS: optional,
    // Paying by card (docs/product/paying-by-card.md): on when STRIPE_SECRET_KEY is set, which then needs the webhook's
    // signing secret; the prices are checked against Stripe at start (app/services/billing/stripe-prices.server.ts).
    STRIPE_SECRET_KEY: optional.pipe(
      z
        .string()
        .regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_live_…, sk_test_… or a restricted rk_…)')
        .optional(),
    ),
    STRIPE_WEBHOOK_SECRET: optional.pipe(
      z
        .string()
        .regex(/^whsec_\w+$/, "must be the webhook endpoint's signing secret (whsec_…)")
        .optional(),
    ),
    STRIPE_API_ORIGIN: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
    STRIPE_AUTOMATIC_TAX: optional.pipe(
      z
        .enum(['on', 'off', 'true', 'false', '1', '0'], { error: 'must be on or off' })
        .transform((value) => ['on', 'true', '1'].includes(value))
        .optional(),
    ),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && !env.SESSION_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_SECRET'], message: 'is required in production' })
    }
    if (env.STRIPE_SECRET_KEY && !env.STRIPE_WEBHOOK_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['STRIPE_WEBHOOK_SECRET'],
        message: 'is required when STRIPE_SECRET_KEY is set (the signing secret of the webhook endpoint)',
      })
    }
    if (Boolean(env.VAPID_PUBLIC_KEY) !== Boolean(env.VAPID_PRIVATE_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: ['VAPID_PRIVATE_KEY'],
        message: 'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must be set together',
      })
    }
  })
  .transform((env) => ({
    ...env,
    APP_URL: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    APNS_ORIGIN: (env.APNS_ORIGIN ?? 'https://api.push.apple.com').replace(/\/+$/, ''),
    GOOGLE_WALLET_API_ORIGIN: (env.GOOGLE_WALLET_API_ORIGIN ?? 'https://walletobjects.googleapis.com').replace(
      /\/+$/,
      '',
    ),
    STRIPE_API_ORIGIN: (env.STRIPE_API_ORIGIN ?? 'https://api.stripe.com').replace(/\/+$/, ''),
    STRIPE_AUTOMATIC_TAX: env.STRIPE_AUTOMATIC_TAX ?? false,
    isProduction: env.NODE_ENV === 'production',
    pushAllowedHosts: (env.PUSH_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((host) => host.trim().toLowerCase())
      .filter(Boolean),
  }))

export type Env = z.infer<typeof EnvSchema>

/** Parses an environment; throws an Error whose message is one readable line. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = EnvSchema.safeParse(source)
  if (result.success) return result.data
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || 'environment'
    return `${name} ${issue.message}`
  })
  throw new Error(`Invalid configuration: ${problems.join('; ')}`)
}

let cached: Env | undefined

/** The process's configuration, parsed on first use. */
export function getEnv(): Env {
  cached ??= parseEnv(process.env)
  return cached
}

/** Tests and commands that change process.env call this to read it again. */
export function resetEnvForTests() {
  cached = undefined
}

/** The few values the browser may see (rendered into window.ENV by the root loader). */
export function getPublicEnv() {
  const env = getEnv()
  return { SENTRY_DSN: env.SENTRY_DSN, MODE: env.NODE_ENV }
}
