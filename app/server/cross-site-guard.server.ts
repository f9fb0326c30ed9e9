import { type Refusal } from './request-refusal.server.ts'
import type express from 'express'

/**
 * Every POST, PUT, PATCH and DELETE from a browser must come from our own pages (docs/product/hardening.md, "Requests
 * from other sites"). SameSite=Lax cookies do not cover it: Remix's data paths (`?_data=`) let another site sign a
 * visitor out, or into the other site's account (login CSRF), with a plain cross-site form.
 *
 * A browser says where a request comes from in `Origin`, else `Sec-Fetch-Site`. Our own origin is APP_URL's, or
 * the request's own scheme and host (behind TRUST_PROXY, the forwarded ones: the app reached on a private address).
 * A request with neither header comes from no browser (curl, a server, the tests) and passes; `Origin: null`
 * (a sandboxed frame, a data: page, some redirects) does not.
 */

/**
 * Addresses that take posts from other sites by design, each with its own protection:
 * - /auth_apple: Apple's sign-in answers with a cross-site form_post; its state is bound to the browser.
 * - /api/stripe/webhook: Stripe's events, from Stripe's servers; each is signed with the endpoint's secret
 *   (`Stripe-Signature`), which no cross-site form can make (docs/product/paying-by-card.md, "Webhook").
 */
export const CROSS_SITE_EXCEPTIONS: readonly string[] = ['/auth_apple', '/api/stripe/webhook']
/**
 * Whole address spaces excepted, matched on the resolved path (dot segments cannot climb out of them):
 * - /wallet/apple/: Apple's pass web service, called by Wallet on devices, never by a page; every call that changes
 *   something carries the pass's token (`Authorization: ApplePass …`), which no cross-site form can send.
 */
export const CROSS_SITE_EXCEPTION_PREFIXES: readonly string[] = ['/wallet/apple/']

export const CROSS_SITE_REFUSAL: Refusal = {
  status: 403,
  title: 'This request came from another site',
  message: 'Cross-site requests are not allowed',
  detail: 'Stampwise accepts forms only from its own pages, so nothing was changed. Open Stampwise and try again.',
}

const SAFE_METHODS = new Set(['GET', 'HEAD'])

/** Whether a browser's request comes from one of `ownOrigins`; true when it carries neither header. */
export function comesFromOwnOrigin(
  { origin, fetchSite }: { origin: string | undefined; fetchSite: string | undefined },
  ownOrigins: readonly string[],
): boolean {
  if (origin !== undefined) {
    if (origin === 'null') return false
    try {
      return ownOrigins.includes(new URL(origin).origin)
    } catch {
      return false
    }
  }
  // "none": the person opened the address themselves (a bookmark, the address bar).
  if (fetchSite !== undefined) return fetchSite === 'same-origin' || fetchSite === 'none'
  return true
}

/** The origin the request was sent to: its scheme and Host, or the forwarded ones from a trusted proxy. */
function requestOrigin(req: express.Request): string | null {
  const trust = req.app.get('trust proxy fn') as ((address: string | undefined, hop: number) => boolean) | undefined
  const forwarded = trust?.(req.socket.remoteAddress, 0)
    ? req.get('X-Forwarded-Host')?.split(',')[0]?.trim()
    : undefined
  const host = forwarded || req.get('Host')
  if (!host) return null
  try {
    return new URL(`${req.protocol}://${host}`).origin
  } catch {
    return null
  }
}

/** The path Remix will route (dot segments resolved, as it parses the address), for the exception list. */
function routedPath(req: express.Request): string | null {
  if (!req.originalUrl.startsWith('/')) return null
  try {
    return new URL(req.originalUrl, 'http://stampwise.invalid').pathname
      .replace(/\.data$/, '')
      .replace(/\/+$/, '')
      .toLowerCase()
  } catch {
    return null
  }
}

/** The reason to refuse the request, or null when it may go on. */
export function crossSiteRefusal(req: express.Request, appUrl: string): Refusal | null {
  if (SAFE_METHODS.has(req.method)) return null
  const path = routedPath(req)
  if (path !== null && CROSS_SITE_EXCEPTIONS.includes(path)) return null
  if (path !== null && CROSS_SITE_EXCEPTION_PREFIXES.some((prefix) => path.startsWith(prefix))) return null
  const ownOrigins = [new URL(appUrl).origin, requestOrigin(req)].filter((origin): origin is string => origin !== null)
  const fromOwnOrigin = comesFromOwnOrigin(
    { origin: req.get('Origin'), fetchSite: req.get('Sec-Fetch-Site') },
    ownOrigins,
  )
  return fromOwnOrigin ? null : CROSS_SITE_REFUSAL
}
