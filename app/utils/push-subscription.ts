import { z } from 'zod'

/**
 * What a pass page may register as its push subscription: the browser's `PushSubscription.toJSON()`. The server
 * later posts to the endpoint, so only the push services browsers use are accepted (plus PUSH_ALLOWED_HOSTS, for
 * tests on loopback): nobody may make Stampwise post to an address of their choosing (docs/product/push-messages.md,
 * "Subscriptions").
 */
export const KNOWN_PUSH_HOSTS = ['fcm.googleapis.com', 'android.googleapis.com', 'updates.push.services.mozilla.com']
/** Apple's (web.push.apple.com, api.push.apple.com…) and Windows' (*.notify.windows.com) run on many hosts. */
export const KNOWN_PUSH_HOST_SUFFIXES = ['.push.apple.com', '.notify.windows.com']
export const MAX_ENDPOINT_LENGTH = 2048

export const ENDPOINT_NOT_HTTPS = 'The endpoint must be an https:// address'
export const ENDPOINT_NOT_NORMAL =
  'The endpoint must be the address the browser gave, unchanged: https, no user name, a host of letters, digits, dots and dashes'
export const ENDPOINT_UNKNOWN_SERVICE = 'The endpoint is not on a known push service'
export const P256DH_INVALID = 'keys.p256dh must be a P-256 public key: 65 bytes, base64url'
export const AUTH_INVALID = 'keys.auth must be 16 bytes, base64url'

const base64urlBytes = (value: string) =>
  /^[A-Za-z0-9_-]+={0,2}$/.test(value) ? Buffer.from(value, 'base64url') : null

/** Host (with its port when not 443) of an https address, as PUSH_ALLOWED_HOSTS lists them. */
function hostOf(url: URL) {
  return url.port ? `${url.hostname}:${url.port}` : url.hostname
}

/**
 * The endpoint as a URL when it is in the one form Stampwise saves and sends to (docs/product/hardening.md, "Push
 * endpoints"): exactly what `new URL()` writes back (`href`), https, no credentials, a host of letters, digits, dots
 * and dashes. Parsers disagree on other hosts: WHATWG reads `https://localhost{.push.apple.com/x` as a push.apple.com
 * host, Node's legacy `url.parse` (which web-push sends with) as localhost. Null for any other form.
 */
export function normalPushEndpoint(endpoint: string): URL | null {
  if (!URL.canParse(endpoint)) return null
  const url = new URL(endpoint)
  if (url.href !== endpoint || url.protocol !== 'https:' || url.username || url.password) return null
  return /^[a-z0-9.-]+$/.test(url.hostname) ? url : null
}

export function isAllowedPushEndpoint(endpoint: string, allowedHosts: readonly string[]): boolean {
  const url = normalPushEndpoint(endpoint)
  if (!url) return false
  const host = url.hostname
  if (allowedHosts.includes(hostOf(url).toLowerCase())) return true
  if (url.port) return false
  return KNOWN_PUSH_HOSTS.includes(host) || KNOWN_PUSH_HOST_SUFFIXES.some((suffix) => host.endsWith(suffix))
}

/** The one message for an endpoint that may not be saved, or null when it may. */
export function pushEndpointProblem(endpoint: string, allowedHosts: readonly string[]): string | null {
  if (!/^https:\/\//i.test(endpoint) || !URL.canParse(endpoint)) return ENDPOINT_NOT_HTTPS
  if (!normalPushEndpoint(endpoint)) return ENDPOINT_NOT_NORMAL
  return isAllowedPushEndpoint(endpoint, allowedHosts) ? null : ENDPOINT_UNKNOWN_SERVICE
}

/** The subscription body, checked against the known push services and the extra hosts allowed. */
export function pushSubscriptionSchema(allowedHosts: readonly string[]) {
  return z.object({
    endpoint: z
      .string({ error: 'endpoint is required' })
      .max(MAX_ENDPOINT_LENGTH, `The endpoint must be at most ${MAX_ENDPOINT_LENGTH} characters`)
      .superRefine((value, context) => {
        const problem = pushEndpointProblem(value, allowedHosts)
        if (problem) context.addIssue({ code: 'custom', message: problem })
      }),
    keys: z.object(
      {
        p256dh: z.string({ error: P256DH_INVALID }).refine((value) => {
          const bytes = base64urlBytes(value)
          return bytes?.length === 65 && bytes[0] === 0x04
        }, P256DH_INVALID),
        auth: z.string({ error: AUTH_INVALID }).refine((value) => base64urlBytes(value)?.length === 16, AUTH_INVALID),
      },
      { error: 'keys is required: {"p256dh", "auth"}' },
    ),
  })
}

export const pushUnsubscribeSchema = z.object({
  endpoint: z.string({ error: 'endpoint is required' }).min(1, 'endpoint is required').max(MAX_ENDPOINT_LENGTH),
})
