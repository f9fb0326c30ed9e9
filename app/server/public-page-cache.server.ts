import { createRequestHandler, type AppLoadContext, type ServerBuild } from '@remix-run/node'
import { renderForCache, sendCachedRender, type CachedRender } from './cached-render.server.ts'
import type express from 'express'

/**
 * A few-seconds cache of the public pages as an anonymous visitor sees them (GET, no cookie, no query string).
 * The landing page is what strangers hit hardest, and rendering it costs milliseconds of CPU each time; its content
 * (text, prices) changes rarely, so one render serves every visitor for TTL, each answer with its own CSP nonce.
 * Anything personal — a cookie (session, toast), a query string, a non-200 answer, a Set-Cookie — is never cached.
 */
type Entry = CachedRender & { expiresAt: number }

export function publicPageCache({
  build,
  mode,
  paths,
  ttlMs = 5_000,
  loadContext,
}: {
  build: ServerBuild
  mode: string
  paths: (pathname: string) => boolean
  ttlMs?: number
  loadContext: Omit<AppLoadContext, 'cspNonce'>
}): express.RequestHandler {
  const handle = createRequestHandler(build, mode)
  const entries = new Map<string, Entry>()
  const renders = new Map<string, Promise<Entry | null>>()

  async function render(req: express.Request): Promise<Entry | null> {
    const headers = { accept: 'text/html', 'user-agent': req.headers['user-agent'] ?? '' }
    const rendered = await renderForCache(handle, req, headers, loadContext)
    if (!rendered) return null
    const entry = { ...rendered, expiresAt: Date.now() + ttlMs }
    entries.set(req.path, entry)
    return entry
  }

  return (req, res, next) => {
    if (req.method !== 'GET' || req.headers.cookie || req.originalUrl !== req.path || !paths(req.path)) return next()
    const cached = entries.get(req.path)
    let pending: Promise<Entry | null>
    if (cached && cached.expiresAt > Date.now()) {
      pending = Promise.resolve(cached)
    } else {
      // Concurrent misses share one render.
      pending = renders.get(req.path) ?? render(req).finally(() => renders.delete(req.path))
      renders.set(req.path, pending)
    }
    pending.then((entry) => (entry ? sendCachedRender(res, entry) : next())).catch(next)
  }
}
