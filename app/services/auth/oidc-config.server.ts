import { getEnv } from '#app/server/env.server.ts'

export type OidcProviderName = 'google' | 'apple'

/** Which social sign-in providers are configured: an unconfigured one shows its button with an explanation. */
export function getConfiguredProviders(): Record<OidcProviderName, boolean> {
  const env = getEnv()
  return {
    google: Boolean(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET),
    apple: Boolean(env.APPLE_CLIENT_ID && env.APPLE_TEAM_ID && env.APPLE_KEY_ID && env.APPLE_PRIVATE_KEY),
  }
}

/** What turns each provider on, named on the sign-in pages outside production only (and in the README). */
const PROVIDER_SETTINGS: Record<OidcProviderName, string> = {
  google: 'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET',
  apple: 'APPLE_CLIENT_ID, APPLE_TEAM_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY',
}

export type SocialSignInView = {
  providers: Record<OidcProviderName, boolean>
  /** For the operator trying the app: which settings turn the missing providers on. Null in production. */
  setupNote: string | null
}

/**
 * The sign-in pages' Google and Apple buttons: which work, and — outside production only — the settings that would
 * turn the others on. A visitor of a live site is told only that the way is not available (issue 30, item 3).
 */
export function socialSignInView(): SocialSignInView {
  const providers = getConfiguredProviders()
  const missing = (Object.keys(providers) as OidcProviderName[]).filter((name) => !providers[name])
  const setupNote =
    getEnv().isProduction || missing.length === 0
      ? null
      : `For the operator: set ${missing.map((name) => PROVIDER_SETTINGS[name]).join('; and ')} to turn this on (see the README).`
  return { providers, setupNote }
}
