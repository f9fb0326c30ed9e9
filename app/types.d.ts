type PublicEnv = { SENTRY_DSN?: string; MODE: string }

interface Window {
  ENV: PublicEnv
}
