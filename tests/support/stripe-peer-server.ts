import { startStripePeer } from './stripe-peer.ts'

/*
 * The Stripe peer (stripe-peer.ts) in a process of its own, for the browser tests (playwright.config.ts): on
 * E2E_STRIPE_PORT, accepting STRIPE_SECRET_KEY, signing with STRIPE_WEBHOOK_SECRET, and sending what its checkout page
 * makes to E2E_STRIPE_WEBHOOK_URL (the app's /api/stripe/webhook). The app's start makes the prices here through
 * `npm run stripe:setup`, as an operator would. GET /peer/violations answers what it refused.
 */
const port = Number(process.env.E2E_STRIPE_PORT)
const secretKey = process.env.STRIPE_SECRET_KEY
const webhookSecret = process.env.STRIPE_WEBHOOK_SECRET
const webhookUrl = process.env.E2E_STRIPE_WEBHOOK_URL
if (!Number.isInteger(port) || !secretKey || !webhookSecret || !webhookUrl) {
  throw new Error('E2E_STRIPE_PORT, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and E2E_STRIPE_WEBHOOK_URL are needed')
}
const peer = await startStripePeer({ port, secretKey, webhookSecret })
peer.setWebhookUrl(webhookUrl)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void peer.close().then(() => process.exit(0)))
}
