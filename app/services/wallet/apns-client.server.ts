import crypto from 'node:crypto'
import http2 from 'node:http2'
import tls from 'node:tls'
import { SignJWT } from 'jose'

/**
 * APNs for Apple Wallet passes (docs/product/wallets.md, "Apple updates"): an empty background push per device token
 * over one HTTP/2 connection, reused for every send and opened again lazily when it closes, errors or gets GOAWAY.
 * Plain node:http2: @parse/node-apn refuses self-made certificates, and we need nothing else it does.
 */

export type ApnsAuth =
  | { kind: 'token'; teamId: string; keyId: string; privateKeyPem: string }
  | { kind: 'certificate'; certPem: string; keyPem: string; passphrase?: string }

export type ApnsClientOptions = {
  /** https://api.push.apple.com, or a local peer in tests. */
  origin: string
  /** The pass type identifier. */
  topic: string
  auth: ApnsAuth
  /** Per request, from sending to the whole answer. */
  timeoutMs?: number
  /** The clock for the provider token's age (tests move it). */
  now?: () => number
}

/** APNs' answer (reason from its JSON body), or status 0 when none came: a network error or a timeout. */
export type ApnsAnswer = { status: number; reason?: string; retryAfterMs?: number } | { status: 0; error: string }

export type ApnsClient = {
  /** Never rejects: every failure is an answer. */
  send(pushToken: string): Promise<ApnsAnswer>
  /** Lets requests in flight finish (each within its timeout), then closes the connection. */
  close(): Promise<void>
}

const DEFAULT_TIMEOUT_MS = 10_000
// Apple refuses provider tokens older than an hour, and new ones more often than every 20 minutes.
const TOKEN_RENEW_AFTER_MS = 50 * 60 * 1000
const PUSH_TOKEN = /^[0-9a-f]{1,200}$/i
const MAX_ANSWER_BODY = 2000

export function createApnsClient(options: ApnsClientOptions): ApnsClient {
  const origin = new URL(options.origin).origin
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const now = options.now ?? Date.now
  const { auth } = options
  // A wrong key, certificate or passphrase throws here, at start, not at the first stamp.
  const signingKey = auth.kind === 'token' ? ecPrivateKey(auth.privateKeyPem) : undefined
  const connectOptions: http2.SecureClientSessionOptions =
    auth.kind === 'certificate' ? { cert: auth.certPem, key: auth.keyPem, passphrase: auth.passphrase } : {}
  if (auth.kind === 'certificate') tls.createSecureContext(connectOptions)

  let session: http2.ClientHttp2Session | undefined
  let providerToken: { jwt: Promise<string>; issuedAt: number } | undefined
  let closed = false
  const pinging = new WeakSet<http2.ClientHttp2Session>()
  const connectionErrors = new WeakMap<http2.ClientHttp2Session, Error>()

  function currentSession() {
    if (session && !session.closed && !session.destroyed) return session
    const opened = http2.connect(origin, connectOptions)
    // Kept to explain the streams that fail with it (a refused certificate ends them without a word).
    opened.on('error', (error) => connectionErrors.set(opened, error))
    const forget = () => {
      if (session === opened) session = undefined
    }
    // After a GOAWAY Node closes the session itself (`closed` is true): the next send opens a new one.
    opened.on('close', forget)
    // Pending requests hold the process open through their timers; an idle connection must not.
    opened.unref()
    session = opened
    return opened
  }

  function bearer(auth: Extract<ApnsAuth, { kind: 'token' }>) {
    const at = now()
    if (!providerToken || at - providerToken.issuedAt >= TOKEN_RENEW_AFTER_MS || at < providerToken.issuedAt) {
      // The promise is kept, so sends that start together share one token (a burst must not renew it).
      const jwt = new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: auth.keyId })
        .setIssuer(auth.teamId)
        .setIssuedAt(Math.floor(at / 1000))
        .sign(signingKey!)
      const made = { jwt, issuedAt: at }
      jwt.catch(() => {
        if (providerToken === made) providerToken = undefined
      })
      providerToken = made
    }
    return providerToken.jwt
  }

  /** A request that timed out may mean a dead connection: a PING tells, and a silent one is dropped. */
  function checkAlive(checked: http2.ClientHttp2Session) {
    // Many requests time out together on a dead connection: one PING answers for all of them.
    if (checked.destroyed || checked.closed || pinging.has(checked)) return
    if (checked.connecting) return void checked.destroy(new Error('APNs connection not made in time'))
    pinging.add(checked)
    const timer = setTimeout(() => checked.destroy(new Error('APNs connection does not answer PING')), timeoutMs)
    timer.unref()
    checked.ping((error) => {
      pinging.delete(checked)
      clearTimeout(timer)
      if (error && !checked.destroyed) checked.destroy(error)
    })
  }

  function request(pushToken: string, headers: http2.OutgoingHttpHeaders, retried = false): Promise<ApnsAnswer> {
    return new Promise((resolve) => {
      let on: http2.ClientHttp2Session
      let stream: http2.ClientHttp2Stream
      try {
        on = currentSession()
        stream = on.request({ ...headers, ':method': 'POST', ':path': `/3/device/${pushToken}` })
      } catch (error) {
        return resolve({ status: 0, error: message(error) })
      }
      // A connection that was already up and then failed under this request (closed by Apple, GOAWAY, a reset)
      // says nothing about the request: it gets one more try on a new connection.
      const reused = !on.connecting
      let status = 0
      let retryAfter: string | undefined
      let body = ''
      let settled = false
      const settle = (answer: ApnsAnswer | 'retry') => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        if (answer === 'retry') resolve(request(pushToken, headers, true))
        else resolve(answer)
      }
      const failed = (error: string) => {
        const gone = on.destroyed || on.closed
        if (reused && !retried && !closed && gone) return settle('retry')
        const cause = connectionErrors.get(on)
        settle({ status: 0, error: cause ? message(cause) : error })
      }
      const timer = setTimeout(() => {
        settle({ status: 0, error: `no answer from APNs within ${timeoutMs} ms` })
        stream.close(http2.constants.NGHTTP2_CANCEL)
        checkAlive(on)
      }, timeoutMs)
      stream.on('response', (answerHeaders) => {
        status = Number(answerHeaders[':status'])
        retryAfter = [answerHeaders['retry-after']].flat()[0]
      })
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => {
        if (body.length < MAX_ANSWER_BODY) body += chunk
      })
      stream.on('end', () => {
        // Without an answer, 'close' follows, once the connection's error (if any) is known.
        if (status) settle(answerOf(status, body, retryAfter, now()))
      })
      stream.on('error', (error) => failed(message(error)))
      stream.on('close', () =>
        failed(
          on.destroyed || on.closed
            ? 'APNs connection closed without an answer'
            : `APNs stream closed without an answer (code ${stream.rstCode ?? '?'})`,
        ),
      )
      stream.end('{}')
    })
  }

  return {
    async send(pushToken) {
      // Nothing odd reaches the path: a token that is not hex is refused as APNs would refuse it.
      if (!PUSH_TOKEN.test(pushToken)) return { status: 400, reason: 'BadDeviceToken' }
      if (closed) return { status: 0, error: 'APNs client closed' }
      const headers: http2.OutgoingHttpHeaders = {
        'apns-topic': options.topic,
        'apns-push-type': 'background',
        'apns-priority': '5',
        'content-type': 'application/json',
        'content-length': '2',
      }
      if (auth.kind === 'token') {
        try {
          headers.authorization = `bearer ${await bearer(auth)}`
        } catch (error) {
          return { status: 0, error: `APNs provider token: ${message(error)}` }
        }
      }
      return request(pushToken, headers)
    },
    async close() {
      closed = true
      const last = session
      session = undefined
      if (!last || last.destroyed) return
      await new Promise<void>((resolve) => last.close(resolve))
    },
  }
}

function answerOf(status: number, body: string, retryAfter: string | undefined, now: number): ApnsAnswer {
  const answer: { status: number; reason?: string; retryAfterMs?: number } = { status }
  if (body) {
    try {
      const parsed: unknown = JSON.parse(body)
      const reason = (parsed as { reason?: unknown } | null)?.reason
      if (typeof reason === 'string') answer.reason = reason
    } catch {
      if (status >= 300) answer.reason = body.slice(0, 200)
    }
  }
  const wait = retryAfterMs(retryAfter, now)
  if (wait !== undefined) answer.retryAfterMs = wait
  return answer
}

/** Retry-After in seconds or as an HTTP date. */
function retryAfterMs(header: string | undefined, now: number) {
  if (!header) return undefined
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

function ecPrivateKey(pem: string) {
  const key = crypto.createPrivateKey(pem)
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('APNS_PRIVATE_KEY must be a P-256 (ES256) private key, as Apple issues it in a .p8 file')
  }
  return key
}

function message(error: unknown) {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200)
}
