import crypto from 'node:crypto'
import fs from 'node:fs'
import http2 from 'node:http2'
import { type AddressInfo } from 'node:net'
import path from 'node:path'
import { type TLSSocket } from 'node:tls'
import { fileURLToPath } from 'node:url'
import { decodeProtectedHeader, jwtVerify } from 'jose'

/**
 * Apple's push service (APNs) on loopback for tests: HTTP/2 over TLS with the push endpoint's test certificate
 * (trusted through NODE_EXTRA_CA_CERTS, see push-endpoint.ts; a child process needs pushEndpointCaCerts()). It
 * checks every request as Apple does for a Wallet pass update (path, apns-topic, apns-push-type background,
 * apns-priority 5, the body `{}`, and the ES256 provider token or the TLS client certificate), answers a refused
 * one as Apple would (400/403 with `{"reason": ...}`) and records it as a violation, and otherwise answers as the
 * token's behaviour says.
 */

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/push-endpoint')

export type ApnsPeerOptions = {
  /** The pass type identifier every request must name in apns-topic. */
  topic: string
  /** The clock the provider token's iat is checked against (tests move it along with the client's). */
  now?: () => number
} & (
  | { teamId: string; keyId: string; publicKeyPem: string }
  /** Requires a client certificate signed by this CA (its subject's UID must be the topic, as Apple's are). */
  | { clientCaPem: string }
)

export type ApnsBehaviour =
  | 'ok' // 200 with an apns-id every time
  | 'gone' // 410 Unregistered every time
  | 'hang' // never answers (until close())
  | { fail: number; status: 429 | 500 | 503; retryAfter?: number } // the first `fail` requests fail, then 200
  | { status: number } // this status every time

export type ApnsPeerRequest = {
  token: string
  headers: http2.IncomingHttpHeaders
  body: string
  /** Date.now() when the request arrived. */
  at: number
  authorizedBy: 'token' | 'certificate'
  /** The status answered; null while it waits (a 'hang'). */
  status: number | null
  reason?: string
  /** The provider token (JWT) the request carried, if any. */
  jwt?: string
}

export type ApnsViolation = { token: string; status: number; reason: string; detail: string }

export type ApnsPeer = Awaited<ReturnType<typeof startApnsPeer>>

const REASONS: Record<number, string> = {
  410: 'Unregistered',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
}
const HOUR_MS = 60 * 60 * 1000
const TOKEN_UPDATE_MIN_MS = 20 * 60 * 1000

export async function startApnsPeer(options: ApnsPeerOptions) {
  const now = options.now ?? Date.now
  const behaviours = new Map<string, { behaviour: ApnsBehaviour; attempts: number }>()
  const recorded: ApnsPeerRequest[] = []
  const violations: ApnsViolation[] = []
  const listeners = new Set<() => void>()
  const live = new Set<http2.ServerHttp2Session>()
  const hung = new Set<http2.ServerHttp2Stream>()
  let sessions = 0
  let refusedConnections = 0
  // Per connection: several processes (each its own connection and token) may send for one team.
  const providerTokens = new WeakMap<http2.Http2Session, { jwt: string; iat: number }>()
  const verifyKey = 'publicKeyPem' in options ? crypto.createPublicKey(options.publicKeyPem) : undefined

  const certificateMode = 'clientCaPem' in options
  const server = http2.createSecureServer({
    key: fs.readFileSync(path.join(FIXTURES, 'key.pem')),
    cert: fs.readFileSync(path.join(FIXTURES, 'cert.pem')),
    ...(certificateMode ? { requestCert: true, rejectUnauthorized: true, ca: options.clientCaPem } : {}),
  })
  server.on('session', (session) => {
    sessions++
    live.add(session)
    session.on('close', () => live.delete(session))
    session.on('error', () => {})
  })
  // A handshake refused (no client certificate, or one from another CA): Apple closes the connection.
  server.on('tlsClientError', () => refusedConnections++)
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {})
    let body = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      if (body.length <= 4096) body += chunk
    })
    stream.on('end', () => {
      void handle(stream, headers, body).catch((error: unknown) => {
        if (!stream.headersSent) stream.respond({ ':status': 500 })
        stream.end(String(error))
      })
    })
  })

  async function handle(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, body: string) {
    const match = /^\/3\/device\/([^/?]*)$/.exec(headers[':path'] ?? '')
    const token = match?.[1] ?? ''
    const socket = stream.session?.socket as TLSSocket | undefined
    const record: ApnsPeerRequest = {
      token,
      headers,
      body,
      at: Date.now(),
      authorizedBy: certificateMode && socket?.authorized ? 'certificate' : 'token',
      status: null,
    }
    recorded.push(record)
    const answer = (status: number, reason?: string, extra: Record<string, string> = {}) => {
      record.status = status
      if (reason) record.reason = reason
      if (stream.destroyed) return notify()
      if (status === 200) {
        stream.respond({ ':status': 200, 'apns-id': apnsId(headers), ...extra })
        stream.end()
      } else {
        stream.respond({ ':status': status, 'content-type': 'application/json', 'apns-id': apnsId(headers), ...extra })
        stream.end(JSON.stringify(status === 410 ? { reason, timestamp: now() } : { reason }))
      }
      notify()
    }
    const refuse = (status: number, reason: string, detail: string) => {
      violations.push({ token, status, reason, detail })
      answer(status, reason)
    }

    if (headers[':method'] !== 'POST') return refuse(405, 'MethodNotAllowed', `method ${headers[':method']}`)
    if (!match) return refuse(404, 'BadPath', `path ${headers[':path']}`)
    if (!/^[0-9a-f]{1,200}$/i.test(token)) return refuse(400, 'BadDeviceToken', `token ${token}`)
    if (certificateMode) {
      const uid = socket?.getPeerCertificate().subject?.UID
      if ([uid].flat()[0] !== options.topic) return refuse(403, 'BadCertificate', `certificate UID ${String(uid)}`)
    } else {
      const failure = await checkProviderToken(headers.authorization, stream.session)
      if (failure)
        return refuse(failure.reason === 'TooManyProviderTokenUpdates' ? 429 : 403, failure.reason, failure.detail)
      record.jwt = headers.authorization!.slice('bearer '.length)
    }
    if (!headers['apns-topic']) return refuse(400, 'MissingTopic', 'no apns-topic')
    if (headers['apns-topic'] !== options.topic) return refuse(400, 'BadTopic', `apns-topic ${headers['apns-topic']}`)
    if (headers['apns-push-type'] !== 'background') {
      return refuse(400, 'InvalidPushType', `apns-push-type ${headers['apns-push-type']}`)
    }
    // A background push must have priority 5.
    if (headers['apns-priority'] !== '5') return refuse(400, 'BadPriority', `apns-priority ${headers['apns-priority']}`)
    if (body === '') return refuse(400, 'PayloadEmpty', 'empty body')
    if (body !== '{}') return refuse(400, 'BadPayload', `body ${body.slice(0, 100)}`)

    const state = behaviours.get(token) ?? { behaviour: 'ok' as const, attempts: 0 }
    behaviours.set(token, state)
    const attempt = ++state.attempts
    const { behaviour } = state
    if (behaviour === 'ok') return answer(200)
    if (behaviour === 'gone') return answer(410, 'Unregistered')
    if (behaviour === 'hang') {
      hung.add(stream)
      stream.once('close', () => {
        hung.delete(stream)
        notify()
      })
      return notify()
    }
    if ('fail' in behaviour) {
      if (attempt > behaviour.fail) return answer(200)
      const retryAfter: Record<string, string> =
        behaviour.retryAfter === undefined ? {} : { 'retry-after': String(behaviour.retryAfter) }
      return answer(behaviour.status, REASONS[behaviour.status], retryAfter)
    }
    return answer(behaviour.status, behaviour.status === 200 ? undefined : (REASONS[behaviour.status] ?? 'BadRequest'))
  }

  /** Apple's checks of `authorization: bearer <JWT>`; a failure names Apple's reason. */
  async function checkProviderToken(authorization: string | undefined, session: http2.Http2Session | undefined) {
    if (!('publicKeyPem' in options)) return undefined
    if (!authorization) return { reason: 'MissingProviderToken', detail: 'no authorization header' }
    const jwt = /^bearer ([\w-]+\.[\w-]+\.[\w-]+)$/.exec(authorization)?.[1]
    if (!jwt) return { reason: 'InvalidProviderToken', detail: `authorization ${authorization.slice(0, 40)}` }
    let iat: number
    try {
      const header = decodeProtectedHeader(jwt)
      if (header.kid !== options.keyId) return { reason: 'InvalidProviderToken', detail: `kid ${header.kid}` }
      const { payload } = await jwtVerify(jwt, verifyKey!, {
        algorithms: ['ES256'],
        issuer: options.teamId,
        requiredClaims: ['iat'],
        maxTokenAge: '1h',
        currentDate: new Date(now()),
      })
      iat = payload.iat! * 1000
    } catch (error) {
      const detail = (error as Error).message
      const expired = now() - HOUR_MS > Number(safeIat(jwt)) * 1000
      return { reason: expired ? 'ExpiredProviderToken' : 'InvalidProviderToken', detail }
    }
    const last = session && providerTokens.get(session)
    if (last && last.jwt !== jwt) {
      if (iat - last.iat < TOKEN_UPDATE_MIN_MS) {
        return { reason: 'TooManyProviderTokenUpdates', detail: 'a new provider token within 20 minutes' }
      }
    }
    if (session && last?.jwt !== jwt) providerTokens.set(session, { jwt, iat })
    return undefined
  }

  function notify() {
    for (const listener of listeners) listener()
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port

  return {
    port,
    /** https://localhost:{port}: the certificate names localhost and 127.0.0.1. */
    origin: `https://localhost:${port}`,
    /** How a token's requests are answered from now on (its attempt count starts again); 'ok' by default. */
    setBehaviour(token: string, behaviour: ApnsBehaviour) {
      behaviours.set(token, { behaviour, attempts: 0 })
    },
    /** Every request, answered or not, in order of arrival. */
    requests: () => [...recorded],
    /** Requests refused because they broke one of Apple's rules. */
    violations: () => [...violations],
    /** HTTP/2 connections (sessions) accepted so far. */
    sessions: () => sessions,
    /** TLS handshakes refused (certificate mode without a valid client certificate). */
    refusedConnections: () => refusedConnections,
    /** Resolves once `count` requests have arrived (answered or waiting). */
    waitFor(count: number, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (recorded.length < count) return
          listeners.delete(check)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          listeners.delete(check)
          reject(new Error(`APNs peer: ${count} requests not reached within ${timeoutMs} ms (${recorded.length})`))
        }, timeoutMs)
        listeners.add(check)
        check()
      })
    },
    /** Drops every open connection as Apple may: a GOAWAY first (graceful), or the TCP connection torn down. */
    async dropSessions({ goaway = false }: { goaway?: boolean } = {}) {
      const dropping = [...live]
      await Promise.all(
        dropping.map(
          (session) =>
            new Promise<void>((resolve) => {
              if (session.destroyed) return resolve()
              session.once('close', () => resolve())
              if (goaway) session.close()
              else session.destroy()
            }),
        ),
      )
    },
    /** Stops listening and drops every connection, waiting requests included. */
    close() {
      for (const stream of hung) stream.close(http2.constants.NGHTTP2_CANCEL)
      for (const session of live) session.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function apnsId(headers: http2.IncomingHttpHeaders) {
  const given = headers['apns-id']
  return typeof given === 'string' ? given : crypto.randomUUID()
}

function safeIat(jwt: string) {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { iat?: unknown }
    return typeof payload.iat === 'number' ? payload.iat : Number.NaN
  } catch {
    return Number.NaN
  }
}
