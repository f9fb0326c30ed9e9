import crypto from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import { defineConfig } from '@playwright/test'
import { makeAppleCerts } from './tests/support/apple-certs.ts'
import { ensureFreshBuild } from './tests/support/fresh-build.ts'
import { makeGoogleServiceAccount } from './tests/support/google-service-account.ts'
import { pushEndpointCaCerts } from './tests/support/push-endpoint.ts'
import { e2eMailPorts } from './tests/support/smtp-peer.ts'

// End-to-end tests drive Debian's Chromium (Playwright cannot download its own browsers here) against the built
// app on a fresh embedded database. Every flow runs twice: with JavaScript, and with JavaScript turned off.
// The web server below serves build/: remake it first when a source file is newer (once, in the runner, not in
// each worker that loads this file again).
if (!process.env.TEST_WORKER_INDEX) ensureFreshBuild()
const PORT = Number(process.env.E2E_PORT ?? 4173)
// Set once by the runner and inherited by its workers, which reach the same database through its socket
// (tests/support/e2e-database.ts) to arrange states no page can (a trial's end date, say).
process.env.E2E_DATA_DIR ??= path.join(os.tmpdir(), `stampwise-e2e-${process.pid}`)
const DATA_DIR = process.env.E2E_DATA_DIR
export const E2E_BASE_URL = `http://localhost:${PORT}`
// The app sends its mail over SMTP to a peer the tests read (tests/support/smtp-peer-server.ts).
const MAIL_PORTS = e2eMailPorts()
// Google and Apple are local OpenID providers (tests/support/oidc-provider-server.ts), each in its own process.
const OIDC_PORTS = {
  google: Number(process.env.E2E_GOOGLE_OIDC_PORT ?? 4510),
  apple: Number(process.env.E2E_APPLE_OIDC_PORT ?? 4511),
}
// A Web Push service (tests/support/push-endpoint-server.ts) the app sends to over HTTPS, trusting its certificate.
export const E2E_PUSH_PORTS = {
  push: Number(process.env.E2E_PUSH_PORT ?? 4520),
  control: Number(process.env.E2E_PUSH_CONTROL_PORT ?? 4521),
}
process.env.E2E_PUSH_CONTROL_URL ??= `http://127.0.0.1:${E2E_PUSH_PORTS.control}`
// Google Wallet's REST API (tests/support/google-wallet-fake-server.ts), its control API on the same port. Not 4530:
// the soak bench's push endpoint has that. The fake and the app get one service account from these settings (each
// process that made its own key would sign with one the other does not know); workers load this file again and
// make another, which they never use: they read the fake through its control API.
const GOOGLE_WALLET_PORT = Number(process.env.E2E_GOOGLE_WALLET_PORT ?? 4540)
const GOOGLE_WALLET_ORIGIN = `http://127.0.0.1:${GOOGLE_WALLET_PORT}`
process.env.E2E_GOOGLE_WALLET_URL = GOOGLE_WALLET_ORIGIN
const GOOGLE_WALLET_ENV = makeGoogleServiceAccount().env(GOOGLE_WALLET_ORIGIN)
// Paying by card on, against the Stripe peer (tests/support/stripe-peer-server.ts) in its own process: the key and
// the webhook secret are fixed here so the peer and the app agree; the app's start runs `npm run stripe:setup` first.
const STRIPE_PORT = Number(process.env.E2E_STRIPE_PORT ?? 4550)
const E2E_STRIPE_ORIGIN = `http://127.0.0.1:${STRIPE_PORT}`
const STRIPE_ENV = {
  STRIPE_SECRET_KEY: 'sk_test_stampwise_e2e',
  STRIPE_WEBHOOK_SECRET: 'whsec_stampwise_e2e',
  STRIPE_API_ORIGIN: E2E_STRIPE_ORIGIN,
}
const APPLE_PRIVATE_KEY = crypto
  .generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString()

const chromium = {
  browserName: 'chromium' as const,
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  },
}

export default defineConfig({
  testDir: 'tests/e2e',
  fullyParallel: true,
  // A test.only left behind would run alone and report the rest as nothing: CI refuses it.
  forbidOnly: Boolean(process.env.CI),
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  timeout: 30_000,
  reporter: process.env.CI ? [['list']] : [['list']],
  use: { baseURL: E2E_BASE_URL, trace: 'retain-on-failure' },
  projects: [
    { name: 'js', use: { ...chromium, javaScriptEnabled: true } },
    { name: 'no-js', use: { ...chromium, javaScriptEnabled: false } },
  ],
  webServer: [
    {
      command: `node --import tsx tests/support/oidc-provider-server.ts google ${OIDC_PORTS.google}`,
      url: `http://127.0.0.1:${OIDC_PORTS.google}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `node --import tsx tests/support/oidc-provider-server.ts apple ${OIDC_PORTS.apple}`,
      url: `http://127.0.0.1:${OIDC_PORTS.apple}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: 'node --import tsx tests/support/smtp-peer-server.ts',
      url: `http://127.0.0.1:${MAIL_PORTS.http}/healthz`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: { E2E_SMTP_PORT: String(MAIL_PORTS.smtp), E2E_SMTP_HTTP_PORT: String(MAIL_PORTS.http) },
    },
    {
      command: `node --import tsx tests/support/push-endpoint-server.ts ${E2E_PUSH_PORTS.push} ${E2E_PUSH_PORTS.control}`,
      url: `http://127.0.0.1:${E2E_PUSH_PORTS.control}/healthz`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: 'node --import tsx tests/support/google-wallet-fake-server.ts',
      url: `${GOOGLE_WALLET_ORIGIN}/healthz`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: { GOOGLE_WALLET_FAKE_PORT: String(GOOGLE_WALLET_PORT), ...GOOGLE_WALLET_ENV },
    },
    {
      command: 'node --import tsx tests/support/stripe-peer-server.ts',
      url: `${E2E_STRIPE_ORIGIN}/healthz`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: {
        ...STRIPE_ENV,
        E2E_STRIPE_PORT: String(STRIPE_PORT),
        E2E_STRIPE_WEBHOOK_URL: `http://127.0.0.1:${PORT}/api/stripe/webhook`,
      },
    },
    {
      // As `npm run serve` starts it: the compiled server (npm run build writes it before the tests run), after
      // `npm run stripe:setup` has made the plans' prices at the Stripe peer (the start checks they are there).
      command: `rm -rf "${DATA_DIR}" && node --import tsx scripts/stripe-setup.ts && node build/server.js`,
      url: `${E2E_BASE_URL}/healthz`,
      reuseExistingServer: false,
      // A loaded machine can take over a minute to open the embedded database and start the jobs.
      timeout: 180_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: {
        NODE_ENV: 'test',
        PORT: String(PORT),
        APP_URL: E2E_BASE_URL,
        DATA_DIR,
        RATE_LIMIT_FACTOR: '100',
        SMTP_URL: `smtp://127.0.0.1:${MAIL_PORTS.smtp}`,
        GOOGLE_CLIENT_ID: 'stampwise-e2e.apps.googleusercontent.com',
        GOOGLE_CLIENT_SECRET: 'e2e-google-secret',
        GOOGLE_ISSUER: `http://127.0.0.1:${OIDC_PORTS.google}`,
        APPLE_CLIENT_ID: 'com.stampwise.e2e',
        // Apple Wallet on, with certificates from the test CA (their team id serves Sign in with Apple too).
        ...makeAppleCerts().env(),
        APPLE_KEY_ID: 'E2EKEY1234',
        APPLE_PRIVATE_KEY,
        // Named localhost, the app's own site (tests/support/oidc-provider-server.ts says why).
        APPLE_ISSUER: `http://localhost:${OIDC_PORTS.apple}`,
        // Google Wallet on, talking to the fake above.
        ...GOOGLE_WALLET_ENV,
        PUSH_ALLOWED_HOSTS: `localhost:${E2E_PUSH_PORTS.push}`,
        NODE_EXTRA_CA_CERTS: pushEndpointCaCerts(),
        ...STRIPE_ENV,
      },
    },
  ],
})
