import crypto from 'node:crypto'
import { createRequestHandler, type AppLoadContext, type ServerBuild } from '@remix-run/node'
import type express from 'express'

/**
 * A few-seconds cache of the public pages as an anonymous visitor sees them (GET, no cookie, no query string).
 * The landing page is what strangers hit hardest, and rendering it costs milliseconds of CPU each time; its content
 * (text, prices) changes rarely, so one render serves every visitor for TTL. Only the CSP nonce differs per
 * response: the page is rendered with a random marker as nonce and each answer gets its own nonce in its place.
 * Anything personal — a cookie (session, toast), a query string, a non-200 answer, a Set-Cookie — is never cached.
 */
type Entry = { expiresAt: number; status: number; headers: [string, string][]; body: string; marker: string }

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

  async function render(req: express.Request, pathname: string): Promise<Entry | null> {
    const marker = crypto.randomBytes(18).toString('base64url')
    const response = await handle(
      new Request(new URL(pathname, `http://${req.headers.host ?? 'localhost'}`), {
        headers: { accept: 'text/html', 'user-agent': req.headers['user-agent'] ?? '' },
      }),
      { ...loadContext, cspNonce: marker } as AppLoadContext,
    )
    const body = await response.text()
    if (response.status !== 200 || response.headers.has('set-cookie')) return null
    const entry: Entry = { expiresAt: Date.now() + ttlMs, status: response.status, headers: [...response.headers], body, marker }
    entries.set(pathname, entry)
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
      pending = renders.get(req.path) ?? render(req, req.path).finally(() => renders.delete(req.path))
      renders.set(req.path, pending)
    }
    pending
      .then((entry) => {
        if (!entry) return next()
        res.status(entry.status)
        for (const [name, value] of entry.headers) res.setHeader(name, value)
        res.send(entry.body.replaceAll(entry.marker, res.locals.cspNonce as string))
      })
      .catch(next)
  }
}
