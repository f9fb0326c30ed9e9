/// <reference types="@maxim_mazurok/gapi.client.walletobjects-v1" />
import crypto from 'node:crypto'
import http from 'node:http'
import { type AddressInfo } from 'node:net'
import { checkJwtBearerGrant, newAccessToken } from './google-oauth-grant.ts'
import { checkBody } from './google-wallet-schema.ts'
import {
  allowed,
  createWalletStore,
  googleError,
  issuerIds,
  parseRoute,
  refusal,
  type Answer,
  type Route,
} from './google-wallet-store.ts'

/**
 * Google Wallet's REST API on loopback for tests (docs/product/wallets.md): the service account's token grant
 * at /token and the loyalty classes and objects under /walletobjects/v1, answered as Google answers them. Whatever
 * Google would refuse and the app must never send (a bad assertion, a missing or unknown bearer token, an unknown or
 * mistyped field, an insert without its required fields, an id outside the issuer) is answered with Google's error
 * and recorded as a violation; what is the app's normal lot (an expired token, a 409 on a racing insert, a 404 for
 * an object removed on Google's side, the notification limit) is answered the same way but is no violation.
 */

type LoyaltyClass = gapi.client.walletobjects.LoyaltyClass
type LoyaltyObject = gapi.client.walletobjects.LoyaltyObject

export type FakeRequest = { method: string; path: string; body: unknown; status: number; at: number }
/** An HTTP status to answer, a request that never answers, a dropped connection. */
export type FakeFailure = number | 'hang' | 'reset'
export type GoogleWalletFake = {
  /** http://127.0.0.1:<port> (GOOGLE_WALLET_API_ORIGIN) */
  origin: string
  /** `${origin}/token` */
  tokenUri: string
  getClass(id: string): LoyaltyClass | undefined
  getObject(id: string): LoyaltyObject | undefined
  objectIds(): string[]
  /** Every /walletobjects request, in order (not /token); status 0 for a hung or dropped one. */
  requests(): FakeRequest[]
  /** Successful token grants. */
  tokenRequests(): number
  /** What the real API would refuse and the app must never send. Tests assert it stays []. */
  violations(): string[]
  /** The next `count` matching /walletobjects requests fail so (a status with Google's error body, hang, reset). */
  failNext(count: number, failure: FakeFailure, match?: (method: string, path: string) => boolean): void
  /** As if removed on Google's side: later calls for it answer 404. */
  deleteObject(id: string): void
  /** When (ms) the object's holder was notified, within Google's limit. */
  notifications(objectId: string): number[]
  /**
   * Notify requests beyond Google's limit of 3 per object in 24 hours: an update is applied without notifying, a
   * TEXT_AND_NOTIFY message refused with 403 quotaExceeded.
   */
  throttled(objectId: string): number
  /** expires_in of the next grants (default 3600). */
  setTokenLifetime(seconds: number): void
  /** Forgets classes, objects, requests, failures, violations and notifications; granted tokens stay valid. */
  reset(): void
  close(): Promise<void>
}

export type GoogleWalletFakeOptions = {
  issuerId: string
  clientEmail: string
  publicKeyPem: string
  /** The clock of token expiry, assertions and the notification limit. */
  now?: () => number
  port?: number
  /** Paths outside /token and /walletobjects (a control API, say): true when it answered. */
  extraRoutes?: (request: http.IncomingMessage, response: http.ServerResponse, url: URL) => boolean
}

const MAX_BODY_BYTES = 1024 * 1024
const FAILURE_MESSAGES: Record<number, string> = {
  429: "Quota exceeded for quota metric 'Write requests' of service 'walletobjects.googleapis.com'.",
  500: 'Internal error encountered.',
  503: 'The service is currently unavailable.',
  504: 'The request timed out.',
}
const CREDENTIALS_HELP =
  'Expected OAuth 2 access token, login cookie or other valid authentication credential. ' +
  'See https://developers.google.com/identity/sign-in/web/devconsole-project.'

export async function startGoogleWalletFake(options: GoogleWalletFakeOptions): Promise<GoogleWalletFake> {
  const now = options.now ?? Date.now
  const publicKey = crypto.createPublicKey(options.publicKeyPem)
  const store = createWalletStore({ issuerId: options.issuerId, now })
  const ids = issuerIds(options.issuerId)
  const tokens = new Map<string, number>()
  const recorded: FakeRequest[] = []
  const violations: string[] = []
  let failures: { left: number; failure: FakeFailure; match?: (method: string, path: string) => boolean }[] = []
  let grants = 0
  let tokenLifetime = 3600
  let tokenUri = ''

  const server = http.createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      // A fault of the fake itself: listed with the violations so that no test passes over it.
      violations.push(`${request.method} ${request.url}: the fake failed: ${String(error)}`)
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain' })
      response.end(`google wallet fake: ${String(error)}`)
    })
  })

  async function handle(request: http.IncomingMessage, response: http.ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://fake')
    const method = request.method ?? 'GET'
    if (url.pathname === '/token' && method === 'POST') {
      const { text } = await readBody(request)
      return send(response, await grantToken(request.headers['content-type'], text))
    }
    if (!url.pathname.startsWith('/walletobjects/') && options.extraRoutes?.(request, response, url)) return

    const { text, tooLarge } = await readBody(request)
    const path = decodePath(url.pathname)
    const record: FakeRequest = { method, path, body: parseOr(text), status: 0, at: now() }
    recorded.push(record)
    // In Google's order: an unknown address is a 404 whoever asks, then the token, then the request itself.
    const route = parseRoute(path)
    const problem =
      !route || !allowed(method, route)
        ? { status: 404, body: googleError(404, 'Not Found'), violation: 'no such endpoint in the fake' }
        : (checkAuthorization(request.headers.authorization) ?? checkRequest(method, route, text, tooLarge))
    const failure = takeFailure(method, path)
    let answer: Answer | 'hang' | 'reset'
    if (failure !== undefined) {
      // The injected failure answers, but what the app sent is judged all the same.
      if (problem?.violation) violations.push(`${method} ${path}: ${problem.violation}`)
      answer = typeof failure === 'number' ? failureAnswer(failure) : failure
    } else if (problem) {
      if (problem.violation) violations.push(`${method} ${path}: ${problem.violation}`)
      answer = problem
    } else {
      answer = store.perform(method, route!, JSON.parse(text || '{}') as unknown)
      if (answer.violation) violations.push(`${method} ${path}: ${answer.violation}`)
    }
    if (answer === 'reset') return request.socket.destroy()
    if (answer === 'hang') return
    record.status = answer.status
    send(response, answer)
  }

  async function grantToken(contentType: string | undefined, form: string): Promise<Answer> {
    const refused = await checkJwtBearerGrant(contentType, form, {
      clientEmail: options.clientEmail,
      publicKey,
      tokenUri,
      now,
    })
    if (refused) {
      violations.push(`POST /token: ${refused.error}: ${refused.error_description}`)
      return { status: 400, body: refused }
    }
    const token = newAccessToken()
    tokens.set(token, now() + tokenLifetime * 1000)
    grants++
    return { status: 200, body: { access_token: token, expires_in: tokenLifetime, token_type: 'Bearer' } }
  }

  function checkAuthorization(header: string | undefined): Answer | undefined {
    const unauthenticated = (message: string, violation?: string): Answer => ({
      status: 401,
      body: googleError(401, message),
      headers: { 'WWW-Authenticate': 'Bearer realm="https://accounts.google.com/"' },
      ...(violation ? { violation } : {}),
    })
    if (!header) {
      return unauthenticated(`Request is missing required authentication credential. ${CREDENTIALS_HELP}`, 'no bearer')
    }
    const token = /^Bearer (\S+)$/i.exec(header)?.[1]
    const expiresAt = token === undefined ? undefined : tokens.get(token)
    const invalid = `Request had invalid authentication credentials. ${CREDENTIALS_HELP}`
    if (expiresAt === undefined) return unauthenticated(invalid, `unknown bearer (${header.slice(0, 30)})`)
    // An expired token is the app's cue to ask for a new one: no violation.
    if (expiresAt <= now()) return unauthenticated(invalid)
    return undefined
  }

  /** What Google refuses before it looks at its data: the size, the body's shape and the path's id. */
  function checkRequest(method: string, route: Route, text: string, tooLarge: boolean): Answer | undefined {
    if (tooLarge) return refusal(413, `Request payload size exceeds the limit: ${MAX_BODY_BYTES} bytes.`)
    if (route.id !== undefined && !ids.valid(route.id)) return refusal(400, ids.invalid(route.id))
    if (method === 'GET') return undefined
    let body: unknown
    try {
      body = JSON.parse(text || '{}')
    } catch {
      return refusal(400, `Invalid JSON payload received. Unexpected token in ${JSON.stringify(text.slice(0, 40))}.`)
    }
    const { errors } = checkBody(body, route.addMessage ? 'AddMessageRequest' : route.type)
    if (errors.length > 0) return refusal(400, errors.join('\n'))
    return undefined
  }

  function takeFailure(method: string, path: string): FakeFailure | undefined {
    const entry = failures.find((candidate) => candidate.left > 0 && (candidate.match?.(method, path) ?? true))
    if (!entry) return undefined
    entry.left--
    failures = failures.filter((candidate) => candidate.left > 0)
    return entry.failure
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  tokenUri = `${origin}/token`

  return {
    origin,
    tokenUri,
    getClass: (id) => store.getClass(id) as LoyaltyClass | undefined,
    getObject: (id) => store.getObject(id) as LoyaltyObject | undefined,
    objectIds: store.objectIds,
    requests: () => recorded.map((request) => ({ ...request })),
    tokenRequests: () => grants,
    violations: () => [...violations],
    failNext(count, failure, match) {
      failures.push({ left: count, failure, ...(match ? { match } : {}) })
    },
    deleteObject(id) {
      store.deleteObject(id)
    },
    notifications: store.notifications,
    throttled: store.throttled,
    setTokenLifetime(seconds) {
      tokenLifetime = seconds
    },
    reset() {
      store.reset()
      recorded.length = 0
      violations.length = 0
      failures = []
      grants = 0
      tokenLifetime = 3600
    },
    close() {
      // Hung requests and kept-alive connections too, so a test run can end.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      return closed
    },
  }
}

function failureAnswer(status: number): Answer {
  const message = FAILURE_MESSAGES[status] ?? `Failure injected by the test (${status}).`
  return { status, body: googleError(status, message), ...(status === 429 ? { headers: { 'Retry-After': '1' } } : {}) }
}

function send(response: http.ServerResponse, answer: Answer) {
  if (response.destroyed) return
  const body = JSON.stringify(answer.body)
  response.writeHead(answer.status, { 'Content-Type': 'application/json; charset=UTF-8', ...answer.headers })
  response.end(body)
}

/** The path with its resource id decoded (ids are sent URL-encoded); a malformed escape stays as sent. */
function decodePath(pathname: string) {
  try {
    return decodeURIComponent(pathname)
  } catch {
    return pathname
  }
}

function parseOr(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The body as text; past 1 MB the rest is read and dropped, so the 413 reaches a client still sending. */
async function readBody(request: http.IncomingMessage) {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size <= MAX_BODY_BYTES) chunks.push(chunk)
  }
  return { text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > MAX_BODY_BYTES }
}
