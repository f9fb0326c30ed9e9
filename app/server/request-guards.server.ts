import { allChecks, bodyLimitFor, declaredLength, holdBody, sizeCheck } from './body-limit.server.ts'
import { crossSiteRefusal } from './cross-site-guard.server.ts'
import { type Env } from './env.server.ts'
import { formEntryCheck } from './form-entries.server.ts'
import { sendRefusal } from './request-refusal.server.ts'
import type express from 'express'

/**
 * What every request must pass before the app sees it: it comes from our own pages (cross-site-guard.server.ts),
 * its body is within its limit (body-limit.server.ts) and a form's entries within theirs (form-entries.server.ts).
 * Each answers before anything parses the body, so a refused request costs no memory and no work that grows with
 * it; unread-body.server.ts reads and throws away what the client still sends.
 */
export function requestGuards(env: Pick<Env, 'APP_URL'>): express.RequestHandler[] {
  const refuseCrossSite: express.RequestHandler = (req, res, next) => {
    const refusal = crossSiteRefusal(req, env.APP_URL)
    if (!refusal) {
      // Decided here, once: Remix's own check of a page's form (Origin's host must equal Host, else a 500 and an
      // error log) would refuse APP_URL reached through a proxy that passes another Host.
      delete req.headers.origin
      return next()
    }
    // Someone else's page, not a fault of ours: a warning at most.
    req.log?.warn(
      { origin: req.get('Origin') ?? null, fetchSite: req.get('Sec-Fetch-Site') ?? null },
      'cross-site request refused',
    )
    sendRefusal(req, res, refusal, env.APP_URL)
  }

  const limitBody: express.RequestHandler = (req, res, next) => {
    // Nothing reads the body of a GET or HEAD (Remix gives them none); server.ts throws it away.
    if (req.method === 'GET' || req.method === 'HEAD') return next()
    const length = declaredLength(req)
    if (length === null) return next()
    const { limit, refusal } = bodyLimitFor(req.get('Content-Type'))
    if (length !== 'chunked' && length > limit) return sendRefusal(req, res, refusal, env.APP_URL)
    const entries = formEntryCheck(req.get('Content-Type'), req.path)
    if (length !== 'chunked' && !entries) return next()
    const check = entries ? allChecks(sizeCheck(limit, refusal), entries) : sizeCheck(limit, refusal)
    holdBody(req, check, {
      onWhole: () => next(),
      onRefused: (reason) => sendRefusal(req, res, reason, env.APP_URL),
    })
  }

  return [refuseCrossSite, limitBody]
}
