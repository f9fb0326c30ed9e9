import crypto from 'node:crypto'
import http from 'node:http'
import { type AddressInfo } from 'node:net'
import Stripe from 'stripe'
import { parseStripeForm, type FormObject } from './stripe-form.ts'

/**
 * Stripe's API on loopback for tests (docs/product/paying-by-card.md): the calls the app may make, kept in memory and
 * answered in Stripe's shapes, through the official `stripe` package pointed at `origin` (STRIPE_API_ORIGIN). A call
 * outside the contract's list, a wrong key, or a body Stripe would refuse is answered with Stripe's error and, where
 * the app should never have sent it, recorded as a violation; tests assert `violations()` stays [].
 *
 * Served so far: the prices by lookup key, making products and prices (`npm run stripe:setup`, the start's check),
 * and subscriptions, which tests make and change as Stripe would (a payment, a renewal, a failure, a cancellation)
 * and announce with signed events (`signedEvent`, `deliver`); customers and Checkout sessions, with a stand-in of the
 * hosted checkout page at `{origin}/pay/{sessionId}` whose 'Pay' makes the subscription, sends the events Stripe
 * sends to the app's webhook (`webhookUrl`) and goes back to the session's success address, and whose 'Pay with a
 * declined card' says so and changes nothing. The billing page's calls are served too: the saved card (payment
 * methods), the customer's invoices (each with a hosted link) and Billing Portal sessions, with a stand-in portal page
 * that links back.
 */
export type StripePeerRequest = { method: string; path: string; query: FormObject; body: FormObject; status: number }

export type StripePrice = {
  id: string
  object: 'price'
  active: boolean
  currency: string
  unit_amount: number
  recurring: { interval: string; interval_count: number }
  lookup_key: string | null
  product: string
  nickname: string | null
  tax_behavior: string
  type: 'recurring'
  created: number
  livemode: false
  metadata: Record<string, string>
}
export type StripeProduct = {
  id: string
  object: 'product'
  name: string
  active: boolean
  created: number
  livemode: false
  metadata: Record<string, string>
}

export type StripeSubscription = {
  id: string
  object: 'subscription'
  customer: string
  status: 'trialing' | 'active' | 'past_due' | 'unpaid' | 'canceled' | 'incomplete' | 'incomplete_expired'
  cancel_at_period_end: boolean
  canceled_at: number | null
  metadata: Record<string, string>
  items: {
    object: 'list'
    data: {
      id: string
      object: 'subscription_item'
      price: StripePrice
      quantity: number
      current_period_start: number
      current_period_end: number
    }[]
  }
  created: number
  livemode: false
  /** The card the checkout saved (pm_…), read through GET /v1/payment_methods/{id}. */
  default_payment_method: string | null
}
export type StripeInvoice = {
  id: string
  object: 'invoice'
  customer: string
  number: string
  status: 'paid' | 'open'
  amount_due: number
  amount_paid: number
  currency: string
  created: number
  hosted_invoice_url: string
  parent: {
    type: 'subscription_details'
    subscription_details: { subscription: string; metadata: Record<string, string> }
  }
  livemode: false
}
export type SignedEvent = { id: string; type: string; payload: string; header: string }
export type StripeCustomer = {
  id: string
  object: 'customer'
  email: string | null
  name: string | null
  metadata: Record<string, string>
  created: number
  livemode: false
}
export type StripeCheckoutSession = {
  id: string
  object: 'checkout.session'
  mode: string
  status: 'open' | 'complete' | 'expired'
  customer: string
  client_reference_id: string | null
  metadata: Record<string, string>
  allow_promotion_codes: boolean
  automatic_tax: { enabled: boolean }
  line_items: { price: string; quantity: number }[]
  subscription_data: { metadata: Record<string, string>; trial_end: number | null }
  success_url: string
  cancel_url: string
  subscription: string | null
  url: string
  created: number
  livemode: false
}

export type StripePeer = {
  /** http://127.0.0.1:<port> (STRIPE_API_ORIGIN) */
  origin: string
  /** The key the peer accepts (STRIPE_SECRET_KEY). */
  secretKey: string
  /** The env of an app talking to this peer: the key, the origin and a webhook signing secret. */
  env(): Record<string, string>
  products(): StripeProduct[]
  prices(): StripePrice[]
  /** A price as made in Stripe's dashboard, bypassing the API (a wrong amount, say). */
  addPrice(price: Partial<StripePrice> & Pick<StripePrice, 'product' | 'unit_amount' | 'lookup_key'>): StripePrice
  /**
   * A subscription as Stripe keeps it after a checkout: on the price with this lookup key, for the period given
   * (unix seconds; default: from now, a month or a year by the price).
   */
  createSubscription(options: {
    customer: string
    lookupKey: string
    status?: StripeSubscription['status']
    metadata?: Record<string, string>
    periodStart?: number
    periodEnd?: number
  }): StripeSubscription
  /** Changes a subscription as Stripe would (its status, period, price, cancellation); answers it as it now is. */
  updateSubscription(
    id: string,
    changes: Partial<Pick<StripeSubscription, 'status' | 'cancel_at_period_end' | 'canceled_at'>> & {
      lookupKey?: string
      periodStart?: number
      periodEnd?: number
    },
  ): StripeSubscription
  subscription(id: string): StripeSubscription | undefined
  /**
   * An event as Stripe sends it, with its `Stripe-Signature` header for the webhook's secret; `object` is a copy taken
   * now (an event carries the object as it was). `timestamp` (unix seconds) signs it as sent then.
   */
  signedEvent(
    type: string,
    object: unknown,
    options?: { created?: number; timestamp?: number; secret?: string },
  ): SignedEvent
  /** Posts a signed event to the app's webhook; answers its status and body. */
  deliver(url: string, event: SignedEvent): Promise<{ status: number; body: string }>
  customers(): StripeCustomer[]
  checkoutSession(id: string): StripeCheckoutSession | undefined
  /** Where 'Pay' sends the events (the app's /api/stripe/webhook). */
  setWebhookUrl(url: string): void
  /** Every request, in order. */
  requests(): StripePeerRequest[]
  /** What the real API would refuse, or a call outside the contract's list. Tests assert it stays []. */
  violations(): string[]
  /** The next `count` requests answer this status with Stripe's error body (500: the package retries them). */
  failNext(count: number, status: number): void
  close(): Promise<void>
}

type Handler = (request: { params: string[]; query: FormObject; body: FormObject }) => Answer
type Answer = { status: number; body: unknown }

const WEBHOOK_SECRET = 'whsec_stampwise_test_peer'
const MAX_BODY_BYTES = 64 * 1024
const now = () => Math.floor(Date.now() / 1000)
const newId = (prefix: string) => `${prefix}_${crypto.randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`
const stripeError = (status: number, message: string, extra: { code?: string; param?: string } = {}): Answer => ({
  status,
  body: { error: { type: status >= 500 ? 'api_error' : 'invalid_request_error', message, ...extra } },
})
const list = (url: string, data: unknown[]) => ({ status: 200, body: { object: 'list', url, has_more: false, data } })
const asArray = (value: unknown): string[] =>
  Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : []

export async function startStripePeer({
  port = 0,
  secretKey = `sk_test_stampwise_peer_${crypto.randomBytes(6).toString('hex')}`,
  webhookSecret = WEBHOOK_SECRET,
}: {
  port?: number
  /** The key it accepts: a fresh one unless another process (the browser tests' app) must know it beforehand. */
  secretKey?: string
  webhookSecret?: string
} = {}): Promise<StripePeer> {
  const products = new Map<string, StripeProduct>()
  const prices = new Map<string, StripePrice>()
  const subscriptions = new Map<string, StripeSubscription>()
  const customers = new Map<string, StripeCustomer>()
  const sessions = new Map<string, StripeCheckoutSession>()
  const invoices: StripeInvoice[] = []
  const portals = new Map<string, string>()
  const paymentMethods = new Map<string, { brand: string; last4: string; exp_month: number; exp_year: number }>()
  const idempotent = new Map<string, Answer>()
  let webhookUrl: string | null = null
  let origin = ''
  const requests: StripePeerRequest[] = []
  const violations: string[] = []
  let failures: { count: number; status: number } = { count: 0, status: 500 }

  const violation = (answer: Answer, what: string) => {
    violations.push(what)
    return answer
  }

  const createPrice = (body: FormObject): Answer => {
    const product = String(body.product ?? '')
    if (!products.has(product)) {
      return violation(
        stripeError(400, `No such product: '${product}'`, { code: 'resource_missing', param: 'product' }),
        `price for unknown product ${product}`,
      )
    }
    const amount = Number(body.unit_amount)
    if (!Number.isInteger(amount) || amount < 0) {
      return violation(
        stripeError(400, 'Invalid integer: unit_amount', { param: 'unit_amount' }),
        'price without a valid unit_amount',
      )
    }
    const recurring = body.recurring as FormObject | undefined
    const interval = String(recurring?.interval ?? '')
    if (!['day', 'week', 'month', 'year'].includes(interval)) {
      return violation(
        stripeError(400, 'Invalid recurring[interval]', { param: 'recurring[interval]' }),
        'price without an interval',
      )
    }
    const lookupKey = typeof body.lookup_key === 'string' ? body.lookup_key : null
    const holder = [...prices.values()].find((price) => lookupKey && price.lookup_key === lookupKey)
    if (holder && body.transfer_lookup_key !== 'true') {
      return violation(
        stripeError(400, `A price (\`${holder.id}\`) already uses that lookup key.`, { param: 'lookup_key' }),
        `a second price with lookup key ${lookupKey}`,
      )
    }
    if (holder) holder.lookup_key = null
    const price: StripePrice = {
      id: newId('price'),
      object: 'price',
      active: true,
      currency: String(body.currency ?? '').toLowerCase(),
      unit_amount: amount,
      recurring: { interval, interval_count: Number(recurring?.interval_count ?? 1) },
      lookup_key: lookupKey,
      product,
      nickname: typeof body.nickname === 'string' ? body.nickname : null,
      tax_behavior: typeof body.tax_behavior === 'string' ? body.tax_behavior : 'unspecified',
      type: 'recurring',
      created: now(),
      livemode: false,
      metadata: (body.metadata as Record<string, string>) ?? {},
    }
    prices.set(price.id, price)
    return { status: 200, body: price }
  }

  const priceByKey = (lookupKey: string) => {
    const price = [...prices.values()].find((candidate) => candidate.lookup_key === lookupKey)
    if (!price) throw new Error(`the peer has no price ${lookupKey}`)
    return price
  }
  const periodAfter = (start: number, price: StripePrice) =>
    start + (price.recurring.interval === 'year' ? 365 : 30) * 24 * 60 * 60

  function signedEvent(
    type: string,
    object: unknown,
    {
      created = now(),
      timestamp = now(),
      secret = webhookSecret,
    }: { created?: number; timestamp?: number; secret?: string } = {},
  ): SignedEvent {
    const id = newId('evt')
    const payload = JSON.stringify({
      id,
      object: 'event',
      api_version: '2026-11-18.endive',
      created,
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    })
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp })
    return { id, type, payload, header }
  }
  async function deliver(url: string, event: SignedEvent) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': event.header },
      body: event.payload,
    })
    return { status: response.status, body: await response.text() }
  }

  const createSession = (body: FormObject): Answer => {
    const customer = String(body.customer ?? '')
    if (!customers.has(customer)) {
      return violation(
        stripeError(400, `No such customer: '${customer}'`, { code: 'resource_missing', param: 'customer' }),
        `a checkout for unknown customer ${customer}`,
      )
    }
    if (body.mode !== 'subscription')
      return violation(stripeError(400, 'mode must be subscription'), 'a checkout not in subscription mode')
    const items = (Array.isArray(body.line_items) ? body.line_items : []) as FormObject[]
    const lineItems = items.map((item) => ({ price: String(item.price ?? ''), quantity: Number(item.quantity ?? 1) }))
    if (lineItems.length !== 1 || !prices.has(lineItems[0]!.price)) {
      return violation(
        stripeError(400, 'line_items must name one price', { param: 'line_items' }),
        'a checkout without one known price',
      )
    }
    for (const address of ['success_url', 'cancel_url'] as const) {
      if (typeof body[address] !== 'string' || !/^https?:\/\//.test(body[address] as string)) {
        return violation(
          stripeError(400, `Invalid ${address}`, { param: address }),
          `a checkout without an absolute ${address}`,
        )
      }
    }
    const data = (body.subscription_data ?? {}) as FormObject
    const trialEnd = data.trial_end === undefined ? null : Number(data.trial_end)
    // Stripe's rule: a trial set at checkout ends at least 48 hours after the session is made.
    if (trialEnd !== null && trialEnd < now() + 48 * 60 * 60) {
      return violation(
        stripeError(400, 'subscription_data.trial_end must be at least 48 hours in the future', {
          param: 'subscription_data[trial_end]',
        }),
        'a checkout trial ending within 48 hours',
      )
    }
    const id = newId('cs_test')
    const session: StripeCheckoutSession = {
      id,
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      customer,
      client_reference_id: typeof body.client_reference_id === 'string' ? body.client_reference_id : null,
      metadata: (body.metadata as Record<string, string>) ?? {},
      allow_promotion_codes: body.allow_promotion_codes === 'true',
      automatic_tax: { enabled: (body.automatic_tax as FormObject | undefined)?.enabled === 'true' },
      line_items: lineItems,
      subscription_data: { metadata: (data.metadata as Record<string, string>) ?? {}, trial_end: trialEnd },
      success_url: body.success_url as string,
      cancel_url: body.cancel_url as string,
      subscription: null,
      url: `${origin}/pay/${id}`,
      created: now(),
      livemode: false,
    }
    sessions.set(id, session)
    return { status: 200, body: session }
  }

  /** The hosted checkout's stand-in: GET shows the session, POST pays (or fails, with `outcome=decline`). */
  const checkoutPage = async (
    request: http.IncomingMessage,
    text: string,
    url: URL,
  ): Promise<{ status: number; headers: Record<string, string>; body: string }> => {
    const session = sessions.get(url.pathname.split('/')[2] ?? '')
    if (!session) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'No such checkout session' }
    const price = prices.get(session.line_items[0]!.price)!
    const page = (message = '') => ({
      status: message ? 402 : 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Pay — Stripe test peer</title></head><body><main><h1>Pay ${(price.unit_amount / 100).toFixed(2)} USD a ${price.recurring.interval}</h1>
${message ? `<p role="alert">${message}</p>` : ''}
<form method="post"><button name="outcome" value="pay">Pay</button> <button name="outcome" value="decline">Pay with a declined card</button></form>
<p><a href="${session.cancel_url}">Back</a></p></main></body></html>`,
    })
    if (request.method !== 'POST') return page()
    if (new URLSearchParams(text).get('outcome') === 'decline') return page('Your card was declined.')
    if (session.status !== 'complete') {
      const trialEnd = session.subscription_data.trial_end
      const subscription: StripeSubscription = {
        id: newId('sub'),
        object: 'subscription',
        customer: session.customer,
        status: trialEnd ? 'trialing' : 'active',
        cancel_at_period_end: false,
        canceled_at: null,
        metadata: session.subscription_data.metadata,
        items: {
          object: 'list',
          data: [
            {
              id: newId('si'),
              object: 'subscription_item',
              price,
              quantity: 1,
              current_period_start: now(),
              current_period_end: trialEnd ?? periodAfter(now(), price),
            },
          ],
        },
        created: now(),
        livemode: false,
        default_payment_method: newId('pm'),
      }
      paymentMethods.set(subscription.default_payment_method!, {
        brand: 'visa',
        last4: '4242',
        exp_month: 12,
        exp_year: 2030,
      })
      subscriptions.set(subscription.id, subscription)
      Object.assign(session, { status: 'complete', subscription: subscription.id })
      // The first invoice: paid now, or 0 during a trial (Stripe makes one for the trial too).
      const invoiceId = newId('in')
      invoices.push({
        id: invoiceId,
        object: 'invoice',
        customer: session.customer,
        number: `PEER-${String(invoices.length + 1).padStart(4, '0')}`,
        status: 'paid',
        amount_due: trialEnd ? 0 : price.unit_amount,
        amount_paid: trialEnd ? 0 : price.unit_amount,
        currency: 'usd',
        created: now(),
        hosted_invoice_url: `${origin}/invoices/${invoiceId}`,
        parent: {
          type: 'subscription_details',
          subscription_details: { subscription: subscription.id, metadata: subscription.metadata },
        },
        livemode: false,
      })
      // As Stripe does: the subscription's event and the checkout's, each signed, to the endpoint (in this order,
      // though Stripe promises none).
      if (webhookUrl) {
        for (const [type, object] of [
          ['customer.subscription.created', subscription],
          ['checkout.session.completed', session],
        ] as const) {
          await deliver(webhookUrl, signedEvent(type, object))
        }
      }
    }
    const success = session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id)
    return { status: 303, headers: { location: success }, body: '' }
  }

  // The calls of the contract (docs/product/paying-by-card.md, "The Stripe API calls the app may make").
  const routes: [string, RegExp, Handler][] = [
    [
      'GET',
      /^\/v1\/prices$/,
      ({ query }) => {
        const keys = asArray(query.lookup_keys)
        if (keys.length === 0) violations.push('prices listed without lookup_keys')
        const active = query.active === undefined ? undefined : query.active === 'true'
        return list(
          '/v1/prices',
          [...prices.values()].filter(
            (price) =>
              (keys.length === 0 || (price.lookup_key && keys.includes(price.lookup_key))) &&
              (active === undefined || price.active === active),
          ),
        )
      },
    ],
    [
      'POST',
      /^\/v1\/products$/,
      ({ body }) => {
        const id = typeof body.id === 'string' && body.id ? body.id : newId('prod')
        if (products.has(id)) {
          return stripeError(400, `Product already exists.`, { code: 'resource_already_exists', param: 'id' })
        }
        if (typeof body.name !== 'string' || !body.name.trim()) {
          return violation(
            stripeError(400, 'Missing required param: name.', { param: 'name' }),
            'product without a name',
          )
        }
        const product: StripeProduct = {
          id,
          object: 'product',
          name: body.name,
          active: true,
          created: now(),
          livemode: false,
          metadata: {},
        }
        products.set(id, product)
        return { status: 200, body: product }
      },
    ],
    ['POST', /^\/v1\/prices$/, ({ body }) => createPrice(body)],
    [
      'POST',
      /^\/v1\/customers$/,
      ({ body }) => {
        const customer: StripeCustomer = {
          id: newId('cus'),
          object: 'customer',
          email: typeof body.email === 'string' ? body.email : null,
          name: typeof body.name === 'string' ? body.name : null,
          metadata: (body.metadata as Record<string, string>) ?? {},
          created: now(),
          livemode: false,
        }
        customers.set(customer.id, customer)
        return { status: 200, body: customer }
      },
    ],
    ['POST', /^\/v1\/checkout\/sessions$/, ({ body }) => createSession(body)],
    [
      'GET',
      /^\/v1\/payment_methods\/([^/]+)$/,
      ({ params: [id] }) => {
        const card = paymentMethods.get(id!)
        return card
          ? { status: 200, body: { id, object: 'payment_method', type: 'card', card, created: now(), livemode: false } }
          : stripeError(404, `No such PaymentMethod: '${id}'`, { code: 'resource_missing', param: 'id' })
      },
    ],
    [
      'GET',
      /^\/v1\/invoices$/,
      ({ query }) => {
        if (typeof query.customer !== 'string') violations.push('invoices listed without a customer')
        const limit = Number(query.limit ?? 10)
        return list(
          '/v1/invoices',
          invoices
            .filter((invoice) => invoice.customer === query.customer)
            .slice(-limit)
            .reverse(),
        )
      },
    ],
    [
      'POST',
      /^\/v1\/billing_portal\/sessions$/,
      ({ body }) => {
        const customer = String(body.customer ?? '')
        if (!customers.has(customer) || typeof body.return_url !== 'string') {
          return violation(
            stripeError(400, 'customer and return_url are required'),
            'a portal session without customer or return_url',
          )
        }
        const id = newId('bps')
        portals.set(id, body.return_url)
        return {
          status: 200,
          body: {
            id,
            object: 'billing_portal.session',
            customer,
            return_url: body.return_url,
            url: `${origin}/portal/${id}`,
            created: now(),
            livemode: false,
          },
        }
      },
    ],
    [
      'POST',
      /^\/v1\/subscriptions\/([^/]+)$/,
      ({ params: [id], body }) => {
        const subscription = subscriptions.get(id!)
        if (!subscription) {
          return stripeError(404, `No such subscription: '${id}'`, { code: 'resource_missing', param: 'id' })
        }
        if (subscription.status === 'canceled') {
          return violation(
            stripeError(400, 'A canceled subscription can only update its cancellation_details and metadata.'),
            `an update of canceled ${id}`,
          )
        }
        if (body.cancel_at_period_end !== undefined) {
          subscription.cancel_at_period_end = body.cancel_at_period_end === 'true'
          subscription.canceled_at = subscription.cancel_at_period_end ? now() : null
        }
        const items = (Array.isArray(body.items) ? body.items : []) as FormObject[]
        if (items.length > 0) {
          const item = subscription.items.data[0]!
          const price = prices.get(String(items[0]!.price ?? ''))
          if (items[0]!.id !== item.id || !price) {
            return violation(
              stripeError(400, 'items[0] must name the subscription item and a price', { param: 'items' }),
              `a price change of ${id} without its item or price`,
            )
          }
          if (
            !['create_prorations', 'always_invoice', 'none', undefined].includes(
              body.proration_behavior as string | undefined,
            )
          ) {
            return violation(
              stripeError(400, 'Invalid proration_behavior', { param: 'proration_behavior' }),
              'a bad proration_behavior',
            )
          }
          // A change of interval starts a new period now, as Stripe does; the same interval keeps the period.
          if (price.recurring.interval !== item.price.recurring.interval) {
            item.current_period_start = now()
            item.current_period_end = periodAfter(now(), price)
          }
          item.price = price
        }
        return { status: 200, body: structuredClone(subscription) }
      },
    ],
    [
      'GET',
      /^\/v1\/checkout\/sessions\/([^/]+)$/,
      ({ params: [id] }) => {
        const session = sessions.get(id!)
        return session
          ? { status: 200, body: structuredClone(session) }
          : stripeError(404, `No such checkout.session: '${id}'`, { code: 'resource_missing', param: 'session' })
      },
    ],
    [
      'GET',
      /^\/v1\/subscriptions\/([^/]+)$/,
      ({ params: [id] }) => {
        const subscription = subscriptions.get(id!)
        return subscription
          ? { status: 200, body: structuredClone(subscription) }
          : stripeError(404, `No such subscription: '${id}'`, { code: 'resource_missing', param: 'id' })
      },
    ],
  ]

  const answer = (request: http.IncomingMessage, text: string): Answer => {
    const url = new URL(request.url ?? '/', 'http://peer')
    const query = parseStripeForm(url.search.slice(1))
    const body = request.method === 'POST' ? parseStripeForm(text) : {}
    const entry: StripePeerRequest = { method: request.method ?? 'GET', path: url.pathname, query, body, status: 0 }
    requests.push(entry)
    const respond = (result: Answer) => {
      entry.status = result.status
      return result
    }
    if (request.headers.authorization !== `Bearer ${secretKey}`) {
      return respond(stripeError(401, 'Invalid API Key provided'))
    }
    if (failures.count > 0) {
      failures.count--
      return respond(stripeError(failures.status, 'An unknown error occurred'))
    }
    // Stripe's idempotency: a POST repeated with its key gets the first answer, and does nothing again.
    const key = request.method === 'POST' ? request.headers['idempotency-key'] : undefined
    const keyed = typeof key === 'string' ? `${url.pathname} ${key}` : null
    if (keyed && idempotent.has(keyed)) return respond(idempotent.get(keyed)!)
    for (const [method, pattern, handler] of routes) {
      const match = pattern.exec(url.pathname)
      if (match && method === request.method) {
        const result = handler({ params: match.slice(1), query, body })
        if (keyed && result.status < 500) idempotent.set(keyed, result)
        return respond(result)
      }
    }
    violations.push(`a call outside the contract: ${request.method} ${url.pathname}`)
    return respond(stripeError(404, `Unrecognized request URL (${request.method}: ${url.pathname}).`))
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const url = new URL(request.url ?? '/', 'http://peer')
      // The stand-in page's icon, which a browser asks for: none (an API error there would be a console error).
      if (url.pathname === '/favicon.ico') {
        response.writeHead(204).end()
        return
      }
      // For a peer in its own process (tests/support/stripe-peer-server.ts): that it is up, and what it refused.
      if (url.pathname === '/healthz') {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
        return
      }
      if (url.pathname === '/peer/violations') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(violations))
        return
      }
      if (url.pathname.startsWith('/portal/')) {
        const back = portals.get(url.pathname.split('/')[2] ?? '')
        response.writeHead(back ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' })
        response.end(
          back
            ? `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Billing — Stripe test peer</title></head><body><main><h1>Manage billing</h1><p><a href="${back}">Return to Stampwise</a></p></main></body></html>`
            : 'No such portal session',
        )
        return
      }
      if (url.pathname.startsWith('/pay/')) {
        void checkoutPage(request, text, url).then(
          (page) => {
            response.writeHead(page.status, page.headers)
            response.end(page.body)
          },
          (error: Error) => {
            response.writeHead(500, { 'content-type': 'text/plain' })
            response.end(error.message)
          },
        )
        return
      }
      const result =
        size > MAX_BODY_BYTES
          ? violation(stripeError(413, 'Request body too large'), 'a request body over 64 KB')
          : answer(request, text)
      response.writeHead(result.status, { 'content-type': 'application/json', 'request-id': newId('req') })
      response.end(JSON.stringify(result.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    origin,
    secretKey,
    env: () => ({ STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_ORIGIN: origin }),
    products: () => [...products.values()],
    prices: () => [...prices.values()],
    addPrice: (fields) => {
      if (!products.has(fields.product)) {
        products.set(fields.product, {
          id: fields.product,
          object: 'product',
          name: fields.product,
          active: true,
          created: now(),
          livemode: false,
          metadata: {},
        })
      }
      const price: StripePrice = {
        id: newId('price'),
        object: 'price',
        active: true,
        currency: 'usd',
        recurring: { interval: 'month', interval_count: 1 },
        nickname: null,
        tax_behavior: 'exclusive',
        type: 'recurring',
        created: now(),
        livemode: false,
        metadata: {},
        ...fields,
      }
      prices.set(price.id, price)
      return price
    },
    createSubscription: ({ customer, lookupKey, status = 'active', metadata = {}, periodStart, periodEnd }) => {
      const price = priceByKey(lookupKey)
      const start = periodStart ?? now()
      const subscription: StripeSubscription = {
        id: newId('sub'),
        object: 'subscription',
        customer,
        status,
        cancel_at_period_end: false,
        canceled_at: null,
        metadata,
        items: {
          object: 'list',
          data: [
            {
              id: newId('si'),
              object: 'subscription_item',
              price,
              quantity: 1,
              current_period_start: start,
              current_period_end: periodEnd ?? periodAfter(start, price),
            },
          ],
        },
        created: now(),
        livemode: false,
        default_payment_method: null,
      }
      subscriptions.set(subscription.id, subscription)
      return structuredClone(subscription)
    },
    updateSubscription: (id, { lookupKey, periodStart, periodEnd, ...changes }) => {
      const subscription = subscriptions.get(id)
      if (!subscription) throw new Error(`the peer has no subscription ${id}`)
      Object.assign(subscription, changes)
      const item = subscription.items.data[0]!
      if (lookupKey) item.price = priceByKey(lookupKey)
      if (periodStart !== undefined) item.current_period_start = periodStart
      if (periodEnd !== undefined) item.current_period_end = periodEnd
      return structuredClone(subscription)
    },
    subscription: (id) => structuredClone(subscriptions.get(id)),
    signedEvent,
    deliver,
    customers: () => [...customers.values()],
    checkoutSession: (id) => structuredClone(sessions.get(id)),
    setWebhookUrl: (url) => {
      webhookUrl = url
    },
    requests: () => [...requests],
    violations: () => [...violations],
    failNext: (count, status) => {
      failures = { count, status }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
