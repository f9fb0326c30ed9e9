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
 * and announce with signed events (`signedEvent`, `deliver`). Customers, Checkout and portal sessions, invoices and
 * payment methods come with the checkout.
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
}
export type SignedEvent = { id: string; type: string; payload: string; header: string }

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

export async function startStripePeer({ port = 0 }: { port?: number } = {}): Promise<StripePeer> {
  const secretKey = `sk_test_stampwise_peer_${crypto.randomBytes(6).toString('hex')}`
  const products = new Map<string, StripeProduct>()
  const prices = new Map<string, StripePrice>()
  const subscriptions = new Map<string, StripeSubscription>()
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
    for (const [method, pattern, handler] of routes) {
      const match = pattern.exec(url.pathname)
      if (match && method === request.method) return respond(handler({ params: match.slice(1), query, body }))
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
      const result =
        size > MAX_BODY_BYTES
          ? violation(stripeError(413, 'Request body too large'), 'a request body over 64 KB')
          : answer(request, Buffer.concat(chunks).toString('utf8'))
      response.writeHead(result.status, { 'content-type': 'application/json', 'request-id': newId('req') })
      response.end(JSON.stringify(result.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    origin,
    secretKey,
    env: () => ({ STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_ORIGIN: origin }),
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
    signedEvent: (type, object, { created = now(), timestamp = now(), secret = WEBHOOK_SECRET } = {}) => {
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
    },
    deliver: async (url, event) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': event.header },
        body: event.payload,
      })
      return { status: response.status, body: await response.text() }
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
