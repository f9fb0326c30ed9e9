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
