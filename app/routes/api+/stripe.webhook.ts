import { type ActionFunctionArgs } from '@remix-run/node'
import { postOnlyLoader } from '#app/server/api.server.ts'
import { receiveStripeWebhook } from '#app/services/billing/stripe-webhook.server.ts'

/**
 * POST /api/stripe/webhook: Stripe's events (docs/product/paying-by-card.md, "Webhook"). The raw body is what the
 * signature covers, so it is read as text, never parsed first. Exempt from the same-origin rule (signed instead:
 * cross-site-guard.server.ts). Answers JSON: 200 once applied (or ignored), 400 for a missing or bad signature, 413
 * past 64 KB, 503 when Stripe could not be asked (Stripe sends the event again), 404 while paying by card is off.
 */
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') {
    return Response.json({ error: 'Method not allowed' }, { status: 405, headers: { Allow: 'POST' } })
  }
  const answer = await receiveStripeWebhook(await request.text(), request.headers.get('stripe-signature'))
  return Response.json(
    answer.status === 200 ? { received: true, outcome: answer.outcome } : { error: answer.message },
    { status: answer.status, headers: { 'Cache-Control': 'no-store' } },
  )
}

export const loader = postOnlyLoader
