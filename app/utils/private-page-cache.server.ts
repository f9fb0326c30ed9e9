import { createRequestHandler, type AppLoadContext, type ServerBuild } from '@remix-run/node'
import type express from 'express'
import { renderForCache, sendCachedRender, type CachedRender } from './cached-render.server.ts'

/**
 * The signed-in owner's busiest pages (the account home), rendered once per version of the data they show.
 * Rendering a page costs milliseconds of CPU; checking whether anything on it changed costs one indexed query
 * (`version`, which also checks the session). A request whose version matches the last render gets that render,
 * with its own CSP nonce. Anything else — another version, a toast
 * cookie, a query string, a non-200 answer or a Set-Cookie — goes through Remix as usual.
 */
export type PageVersion = { userId: string; version: string }

type Entry = CachedRender & { version: string }

const MAX_ENTRIES = 2_000

export function privatePageCache({
  build,
  mode,
  paths,
  version,
  loadContext,
}: {
  build: ServerBuild
  mode: string
  paths: (pathname: string) => boolean
  version: (cookieHeader: string, pathname: string) => Promise<PageVersion | null>
  loadContext: Omit<AppLoadContext, 'cspNonce'>
}): express.RequestHandler {
  const handle = createRequestHandler(build, mode)
  const entries = new Map<string, Entry>()
  const renders = new Map<string, Promise<Entry | null>>()

  async function render(req: express.Request, key: string, current: PageVersion): Promise<Entry | null> {
    const headers = {
      accept: 'text/html',
      cookie: req.headers.cookie ?? '',
      'user-agent': req.headers['user-agent'] ?? '',
      'x-stampwise-client-ip': String(req.headers['x-stampwise-client-ip'] ?? ''),
    }
    const rendered = await renderForCache(handle, req, headers, loadContext)
    if (!rendered) return null
    const entry: Entry = { ...rendered, version: current.version }
    entries.delete(key)
    entries.set(key, entry)
    // Oldest first: Map keeps insertion order, and a re-render re-inserts.
    if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!)
    return entry
  }

  return (req, res, next) => {
    const cookie = req.headers.cookie
    if (req.method !== 'GET' || !cookie?.includes('__session=') || cookie.includes('__toast=')) return next()
    if (req.originalUrl !== req.path || !paths(req.path)) return next()
    version(cookie, req.path)
      .then(async (current) => {
        if (!current) return null
        const key = `${current.userId} ${req.path}`
        const cached = entries.get(key)
        if (cached?.version === current.version) return cached
        // Concurrent misses of one owner share one render.
        const renderKey = `${key} ${current.version}`
        let pending = renders.get(renderKey)
        if (!pending) {
          pending = render(req, key, current).finally(() => renders.delete(renderKey))
          renders.set(renderKey, pending)
        }
        return pending
      })
      .then((entry) => (entry ? sendCachedRender(res, entry) : next()))
      .catch(next)
  }
}
