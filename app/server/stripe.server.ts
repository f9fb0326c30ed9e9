import { getEnv, type Env } from './env.server.ts'
import { loadOnFirstUse } from './load-on-first-use.server.ts'
import type Stripe from 'stripe'

/**
 * The Stripe API client (docs/product/paying-by-card.md), or null when paying by card is off (no STRIPE_SECRET_KEY).
 * Through the official `stripe` package, pointed at STRIPE_API_ORIGIN: Stripe itself, or the test peer
 * (tests/support/stripe-peer.ts). Loaded on first use, like the other libraries a request rarely needs
 * (docs/decisions/060-memory.md): a process that takes no card payment never imports it.
 */
export type { Stripe }

/** Requests that get no answer within this fail, rather than holding a page or a webhook open. */
const TIMEOUT_MS = 20_000

const loadStripe = loadOnFirstUse(() => import('stripe'))
const clients = new Map<string, Stripe>()

export function isStripeOn(env: Env = getEnv()): boolean {
  return Boolean(env.STRIPE_SECRET_KEY)
}

export async function getStripe(env: Env = getEnv()): Promise<Stripe | null> {
  if (!env.STRIPE_SECRET_KEY) return null
  const key = `${env.STRIPE_API_ORIGIN} ${env.STRIPE_SECRET_KEY}`
  let client = clients.get(key)
  if (!client) {
    const { default: StripeClient } = await loadStripe()
    const origin = new URL(env.STRIPE_API_ORIGIN)
    const protocol = origin.protocol === 'http:' ? 'http' : 'https'
    client = new StripeClient(env.STRIPE_SECRET_KEY, {
      host: origin.hostname,
      port: origin.port || (protocol === 'http' ? 80 : 443),
      protocol,
      timeout: TIMEOUT_MS,
      // Safe to retry: the package sends an idempotency key with each POST it retries.
      maxNetworkRetries: 2,
      telemetry: false,
      appInfo: { name: 'Stampwise' },
    })
    clients.set(key, client)
  }
  return client
}

/** Stripe's error as one line for a log or a command's output. */
export function stripeErrorLine(error: unknown): string {
  const stripeError = error as { type?: string; statusCode?: number; message?: string; code?: string }
  if (stripeError?.type === 'StripeAuthenticationError') return 'Stripe refused STRIPE_SECRET_KEY'
  if (stripeError?.type === 'StripeConnectionError') return `Stripe could not be reached: ${stripeError.message}`
  return `Stripe answered ${stripeError?.statusCode ?? 'an error'}: ${stripeError?.message ?? String(error)}`
}
