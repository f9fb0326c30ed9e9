import crypto from 'node:crypto'
import fs from 'node:fs'
import https from 'node:https'
import { createRequire } from 'node:module'
import { type AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { jwtVerify } from 'jose'
import type http from 'node:http'

/**
 * A Web Push service on loopback for tests (RFC 8030 delivery, RFC 8291 aes128gcm, RFC 8292 VAPID): it checks each
 * request as FCM or Mozilla's autopush would, decrypts the body with the subscription's private key, and answers as
 * the subscription's behaviour says (201, 410, 503 then 201, a hang...). HTTPS with a self-signed certificate: the
 * process that sends must trust it through NODE_EXTRA_CA_CERTS=pushEndpointCaCerts() (Node reads it only at start).
 */

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/push-endpoint')
/** The endpoint's self-signed certificate (test-only). Trust it with `NODE_EXTRA_CA_CERTS=${pushEndpointCaCerts()}`. */
export const PUSH_ENDPOINT_CA = path.join(FIXTURES, 'cert.pem')

/**
 * The value for NODE_EXTRA_CA_CERTS in a process that sends to the endpoint. Node takes one file there, and the
 * environment may already name one (a system bundle, a proxy's CA): then a bundle of both, written once to the temp
 * folder, so trusting the endpoint does not untrust anything else. Idempotent: a file that has the cert is kept.
 */
export function pushEndpointCaCerts(current = process.env.NODE_EXTRA_CA_CERTS) {
  const cert = fs.readFileSync(PUSH_ENDPOINT_CA, 'utf8')
  if (!current || !fs.existsSync(current)) return PUSH_ENDPOINT_CA
  const existing = fs.readFileSync(current, 'utf8')
  if (existing.includes(cert.trim())) return current
  const bundle = `${existing.trimEnd()}\n${cert}`
  const hash = crypto.createHash('sha256').update(bundle).digest('hex').slice(0, 16)
  const file = path.join(os.tmpdir(), `stampwise-push-ca-${hash}.pem`)
  if (!fs.existsSync(file)) {
    // Written aside and renamed: processes starting at once never read half a file.
    const partial = `${file}.${process.pid}`
    fs.writeFileSync(partial, bundle)
    fs.renameSync(partial, file)
  }
  return file
}

// http_ece comes with web-push and has no types: the one call we make, typed here.
const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(body: Buffer, params: { version: 'aes128gcm'; privateKey: crypto.ECDH; authSecret: string }): Buffer
}

export type Behaviour =
  | 'ok' // 201 every time
  | 'gone' // 410 every time (the subscription expired or was revoked)
  | 'hang' // the first request never gets an answer (until close()), later ones 201
  | { fail: number; status: 503 | 429 | 500; retryAfter?: number } // the first `fail` requests fail, then 201
  | { status: number } // this status every time (404, 413, ...)

/** What `PushSubscription.toJSON()` gives in a browser (less expirationTime). */
export type PushSubscriptionJSON = { endpoint: string; keys: { p256dh: string; auth: string } }

export type PushRequest = {
  subscriptionId: string
  endpoint: string
  /** The status answered; null while a 'hang' request waits forever. */
  status: number | null
  /** Why a request was refused (400/401/403/404/413), as told to the sender. */
  reason?: string
  /** The decrypted body, or null when it was not decrypted (refused before, or no body). */
  payload: string | null
  ttl: number | null
  urgency: string | null
  topic: string | null
  vapidSubject: string | null
  /** Date.now() when the request arrived. */
  at: number
}

export type PushEndpoint = Awaited<ReturnType<typeof startPushEndpoint>>

type Subscription = {
  id: string
  endpoint: string
  ecdh: crypto.ECDH
  auth: string
  behaviour: Behaviour
  attempts: number
}

// RFC 8030 section 7.2: a push service must accept 4096 bytes; FCM and autopush refuse larger bodies with 413.
const MAX_BODY = 4096
const DAY_SECONDS = 24 * 60 * 60

export async function startPushEndpoint({ port = 0, latencyMs = 0 }: { port?: number; latencyMs?: number } = {}) {
  const subscriptions = new Map<string, Subscription>()
  let recorded: PushRequest[] = []
  const listeners = new Set<() => void>()
  const hung = new Set<http.ServerResponse>()
  // web-push signs a fresh JWT per request with the same key: import each k once.
  const publicKeys = new Map<string, crypto.KeyObject>()

  const server = https.createServer(
    { key: fs.readFileSync(path.join(FIXTURES, 'key.pem')), cert: fs.readFileSync(PUSH_ENDPOINT_CA) },
    (req, res) => {
      const chunks: Buffer[] = []
      let size = 0
      req.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size <= MAX_BODY) chunks.push(chunk)
      })
      req.on('end', () => {
        void handle(req, res, size > MAX_BODY ? null : Buffer.concat(chunks)).catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500).end(String(error))
        })
      })
    },
  )
  // Senders keep connections open between requests, as they do with a real push service.
  server.keepAliveTimeout = 60_000

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer | null) {
    const id = /^\/push\/([\w-]+)$/.exec(req.url ?? '')?.[1]
    const subscription = id ? subscriptions.get(id) : undefined
    if (req.method !== 'POST' || !subscription) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('No such subscription')
      return
    }
    const header = (name: string) => (req.headers[name] as string | undefined) ?? null
    const ttl = header('ttl')
    const record: PushRequest = {
      subscriptionId: subscription.id,
      endpoint: subscription.endpoint,
      status: null,
      payload: null,
      ttl: ttl === null ? null : Number(ttl),
      urgency: header('urgency'),
      topic: header('topic'),
      vapidSubject: null,
      at: Date.now(),
    }
    const answer = (status: number, reason?: string, headers: Record<string, string> = {}) => {
      record.status = status
      if (reason) record.reason = reason
      res.writeHead(status, { 'Content-Type': 'text/plain', ...headers }).end(reason ?? '')
      notify()
    }
    recorded.push(record)
    if (latencyMs) await sleep(latencyMs)

    // The checks a real push service makes; a refused request is recorded with its status and reason.
    const vapid = await verifyVapid(header('authorization'), new URL(subscription.endpoint).origin)
    if ('status' in vapid) return answer(vapid.status, vapid.reason)
    record.vapidSubject = vapid.subject
    if (ttl === null || !/^\d+$/.test(ttl)) return answer(400, 'Missing or invalid TTL header')
    if (body === null) return answer(413, `Payload larger than ${MAX_BODY} bytes`)
    if (body.length > 0) {
      if (header('content-encoding') !== 'aes128gcm') return answer(400, 'Content-Encoding must be aes128gcm')
      try {
        const plain = ece.decrypt(body, {
          version: 'aes128gcm',
          privateKey: subscription.ecdh,
          authSecret: subscription.auth,
        })
        record.payload = plain.toString('utf8')
      } catch (error) {
        // A real service cannot tell, but the device would drop the message: make the sender's bug visible.
        return answer(400, `Body does not decrypt: ${(error as Error).message}`)
      }
    }
    const topic = record.topic
    if (topic !== null && !/^[\w-]{1,32}$/.test(topic))
      return answer(400, 'Topic must be at most 32 base64url characters')

    const attempt = ++subscription.attempts
    const behaviour = subscription.behaviour
    if (behaviour === 'ok') return answer(201)
    if (behaviour === 'gone') return answer(410, 'Subscription is gone')
    if (behaviour === 'hang') {
      if (attempt > 1) return answer(201)
      hung.add(res)
      res.once('close', () => hung.delete(res))
      return
    }
    if ('fail' in behaviour) {
      if (attempt > behaviour.fail) return answer(201)
      const retryAfter =
        behaviour.retryAfter === undefined ? undefined : { 'Retry-After': String(behaviour.retryAfter) }
      return answer(behaviour.status, 'Failing on purpose', retryAfter)
    }
    return answer(behaviour.status, behaviour.status >= 300 ? 'Answering on purpose' : undefined)
  }

  /** RFC 8292: `Authorization: vapid t=<JWT>, k=<public key>`; the JWT signed ES256 by k for this origin. */
  async function verifyVapid(
    authorization: string | null,
    origin: string,
  ): Promise<{ status: number; reason: string } | { subject: string }> {
    const match = /^vapid\s+t=([^,\s]+),\s*k=([\w-]+)$/i.exec(authorization ?? '')
    if (!match) return { status: 401, reason: 'Authorization must be "vapid t=<JWT>, k=<key>"' }
    const [, token, k] = match as unknown as [string, string, string]
    let key = publicKeys.get(k)
    if (!key) {
      const point = Buffer.from(k, 'base64url')
      if (point.length !== 65 || point[0] !== 4) return { status: 401, reason: 'k is not an uncompressed P-256 point' }
      const coordinate = (from: number) => point.subarray(from, from + 32).toString('base64url')
      try {
        const jwk = { kty: 'EC', crv: 'P-256', x: coordinate(1), y: coordinate(33) }
        key = crypto.createPublicKey({ key: jwk, format: 'jwk' })
      } catch {
        return { status: 401, reason: 'k is not a point on P-256' }
      }
      publicKeys.set(k, key)
    }
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['ES256'],
        audience: origin,
        requiredClaims: ['exp', 'sub'],
      })
      if (payload.exp! > Date.now() / 1000 + DAY_SECONDS)
        return { status: 403, reason: 'exp is more than 24 hours ahead' }
      if (typeof payload.sub !== 'string' || !/^(mailto|https):/.test(payload.sub)) {
        return { status: 403, reason: 'sub must be a mailto: or https: URL' }
      }
      return { subject: payload.sub }
    } catch (error) {
      return { status: 403, reason: `Invalid VAPID JWT: ${(error as Error).message}` }
    }
  }

  function notify() {
    for (const listener of listeners) listener()
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const actualPort = (server.address() as AddressInfo).port
  // localhost, not 127.0.0.1: the certificate names both, and the VAPID audience is the endpoint's origin.
  const origin = `https://localhost:${actualPort}`

  const received = () =>
    recorded.filter((request) => request.status !== null && request.status >= 200 && request.status < 300)

  return {
    port: actualPort,
    origin,
    /** The value for the app's PUSH_ALLOWED_HOSTS. */
    host: `localhost:${actualPort}`,
    /** A subscription as a browser would make one: its own P-256 key pair and 16-byte auth secret. */
    createSubscription(behaviour: Behaviour = 'ok'): PushSubscriptionJSON {
      const ecdh = crypto.createECDH('prime256v1')
      ecdh.generateKeys()
      const id = crypto.randomBytes(16).toString('base64url')
      const auth = crypto.randomBytes(16).toString('base64url')
      const endpoint = `${origin}/push/${id}`
      subscriptions.set(id, { id, endpoint, ecdh, auth, behaviour, attempts: 0 })
      return { endpoint, keys: { p256dh: ecdh.getPublicKey('base64url'), auth } }
    },
    /** Changes how a subscription answers from now on (its attempt count starts again). */
    setBehaviour(endpoint: string, behaviour: Behaviour) {
      const subscription = [...subscriptions.values()].find((item) => item.endpoint === endpoint)
      if (!subscription) throw new Error(`No subscription ${endpoint}`)
      Object.assign(subscription, { behaviour, attempts: 0 })
    },
    /** Deliveries answered 2xx, decrypted. */
    received,
    /** Every request that reached a subscription's address, answered or not. */
    requests: () => [...recorded],
    /** Count of 2xx answers per subscription endpoint. */
    deliveriesBySubscription() {
      const counts = new Map<string, number>()
      for (const request of received()) counts.set(request.endpoint, (counts.get(request.endpoint) ?? 0) + 1)
      return counts
    },
    /** Resolves once the predicate holds over the requests so far; checked after every answer. */
    waitFor(predicate: (requests: readonly PushRequest[]) => boolean, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(recorded)) return
          listeners.delete(check)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          listeners.delete(check)
          reject(new Error(`push endpoint: condition not met within ${timeoutMs} ms (${recorded.length} requests)`))
        }, timeoutMs)
        listeners.add(check)
        check()
      })
    },
    /** Forgets every subscription and recorded request. */
    reset() {
      subscriptions.clear()
      recorded = []
    },
    /** Stops listening and drops every connection, hung requests included. */
    close() {
      for (const res of hung) res.destroy()
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
