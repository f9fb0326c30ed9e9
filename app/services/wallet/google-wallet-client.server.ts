import crypto from 'node:crypto'
import { SignJWT } from 'jose'
import { type GoogleWalletConfig } from '#app/server/google-wallet-config.server.ts'

/**
 * Google Wallet's REST API over fetch (Google's own Node clients need Node 22): an access token from the OAuth 2.0
 * JWT-bearer grant at the service account's token_uri (an RS256 assertion), reused until it nearly expires and asked
 * for once however many calls wait for it; calls to GOOGLE_WALLET_API_ORIGIN + /walletobjects/v1/... with it. A call
 * answered 401 (the token was revoked or expired early) gets a new token and is tried once more.
 */

export const WALLET_SCOPE = 'https://www.googleapis.com/auth/wallet_object.issuer'
/** A token is renewed this long before Google says it expires (a call must not start with one about to end). */
const RENEW_BEFORE_MS = 5 * 60_000

/** Google's answer: its status and JSON body; status 0 when Google could not be reached (or did not answer in time). */
export type GoogleAnswer =
  | { status: number; body: unknown; retryAfterMs?: number }
  | { status: 0; error: string; body?: undefined; retryAfterMs?: undefined }

export type GoogleWalletClient = {
  request(method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, body?: unknown): Promise<GoogleAnswer>
  /** The save link's JWT, signed with the service account's key (docs/product/wallets.md, "Google pass"). */
  saveJwt(claims: Record<string, unknown>): Promise<string>
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

function describe(error: unknown) {
  const err = error as Error & { cause?: { code?: string; message?: string } }
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'timeout'
  return err.cause?.code ?? err.cause?.message ?? err.message
}

export function createGoogleWalletClient(config: GoogleWalletConfig, { timeoutMs }: { timeoutMs: number }) {
  const { serviceAccount } = config
  const key = crypto.createPrivateKey(serviceAccount.privateKeyPem)
  const header = {
    alg: 'RS256',
    typ: 'JWT',
    ...(serviceAccount.privateKeyId ? { kid: serviceAccount.privateKeyId } : {}),
  }
  let token: { value: string; renewAt: number } | null = null
  let pending: Promise<string> | null = null

  async function grant(): Promise<string> {
    const assertion = await new SignJWT({ scope: WALLET_SCOPE })
      .setProtectedHeader(header)
      .setIssuer(serviceAccount.clientEmail)
      .setAudience(serviceAccount.tokenUri)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key)
    const response = await fetch(serviceAccount.tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const body = (await response.json().catch(() => null)) as {
      access_token?: string
      expires_in?: number
      error?: string
      error_description?: string
    } | null
    if (!response.ok || !body?.access_token) {
      const reason = body?.error_description ?? body?.error ?? `status ${response.status}`
      throw Object.assign(new Error(`Google refused the service account's token request: ${reason}`), {
        status: response.status,
      })
    }
    const lifetimeMs = Math.max(0, Number(body.expires_in ?? 3600) * 1000)
    token = { value: body.access_token, renewAt: Date.now() + Math.max(lifetimeMs - RENEW_BEFORE_MS, lifetimeMs / 2) }
    return body.access_token
  }

  function accessToken(): Promise<string> {
    if (token && token.renewAt > Date.now()) return Promise.resolve(token.value)
    pending ??= grant().finally(() => {
      pending = null
    })
    return pending
  }

  async function call(method: string, path: string, body: unknown, bearer: string): Promise<GoogleAnswer> {
    const response = await fetch(`${config.apiOrigin}/walletobjects/v1/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {
      // Not JSON (a proxy's error page): kept as text for the log.
    }
    return { status: response.status, body: parsed, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) }
  }

  return {
    async request(method, path, body) {
      try {
        const answer = await call(method, path, body, await accessToken())
        if (answer.status !== 401) return answer
        token = null
        return await call(method, path, body, await accessToken())
      } catch (error) {
        // A refused token request is about our credentials: answered as Google's status (401/400), not a network error.
        const status = (error as { status?: number }).status
        if (status) return { status: status >= 500 ? status : 401, body: { error: (error as Error).message } }
        return { status: 0, error: describe(error) }
      }
    },
    async saveJwt(claims) {
      return new SignJWT(claims)
        .setProtectedHeader(header)
        .setIssuer(serviceAccount.clientEmail)
        .setAudience('google')
        .setIssuedAt()
        .sign(key)
    },
  } satisfies GoogleWalletClient
}

/** Google's error message in an answer, for logs and the rows' last_error. */
export function googleError(answer: GoogleAnswer): string {
  if ('error' in answer) return answer.error
  const body = answer.body as { error?: { message?: string; status?: string } | string } | null
  const error = body && typeof body === 'object' ? body.error : undefined
  const message = typeof error === 'string' ? error : (error?.message ?? error?.status ?? '')
  return `${answer.status}${message ? ` ${message}` : ''}`.slice(0, 200)
}

/**
 * Whether Google refused to notify: past a holder's notifications of the day it answers a notifying call 403 with the
 * reason quotaExceeded (it counts notifications the app may not know of: an earlier life of the object, say).
 */
export function isNotificationQuotaExceeded(answer: GoogleAnswer): boolean {
  if (answer.status !== 403) return false
  const errors = (answer.body as { error?: { errors?: { reason?: unknown }[] } } | null)?.error?.errors
  return Array.isArray(errors) && errors.some((error) => error?.reason === 'quotaExceeded')
}

/** How long one call to Google may take before it counts as unreachable. */
export const GOOGLE_TIMEOUT_MS = 10_000

// One client (one token) per process and configuration, shared by the save link and the jobs.
const CLIENT = Symbol.for('stampwise.google-wallet-client')
type Global = { [CLIENT]?: { config: GoogleWalletConfig; client: GoogleWalletClient } }

export function googleWalletClientFor(config: GoogleWalletConfig): GoogleWalletClient {
  const held = (globalThis as Global)[CLIENT]
  if (held?.config === config) return held.client
  const client = createGoogleWalletClient(config, { timeoutMs: GOOGLE_TIMEOUT_MS })
  ;(globalThis as Global)[CLIENT] = { config, client }
  return client
}
