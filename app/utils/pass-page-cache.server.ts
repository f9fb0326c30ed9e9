import { createRequestHandler, type AppLoadContext, type ServerBuild } from '@remix-run/node'
import type express from 'express'
import { renderForCache, sendCachedRender, type CachedRender } from './cached-render.server.ts'

/**
 * The holders' pass pages (/p/{passId}), rendered once per version of the pass and its card. Holders arrive in
 * bursts at the counter and reload after each stamp; the page is the same for everyone who opens it (it reads
 * no session), so checking the version — one indexed query — replaces a render. A toast cookie, a query string,
 * a non-200 answer or a Set-Cookie goes through Remix as usual.
 */
type Entry = CachedRender & { version: string }

const MAX_ENTRIES = 2_000
const PASS_PAGE = /^\/p\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export function passPageCache({
  build,
  mode,
  version,
  loadContext,
}: {
  build: ServerBuild
  mode: string
  version: (passId: string) => Promise<string | null>
  loadContext: Omit<AppLoadContext, 'cspNonce'>
}): express.RequestHandler {
  const handle = createRequestHandler(build, mode)
  const entries = new Map<string, Entry>()
  const renders = new Map<string, Promise<Entry | null>>()

  async function render(req: express.Request, current: string): Promise<Entry | null> {
    const headers = { accept: 'text/html', 'user-agent': req.headers['user-agent'] ?? '' }
    const rendered = await renderForCache(handle, req, headers, loadContext)
    if (!rendered) return null
    const entry: Entry = { ...rendered, version: current }
    entries.delete(req.path)
    entries.set(req.path, entry)
    if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!)
    return entry
  }

  return (req, res, next) => {
    if (req.method !== 'GET' || req.originalUrl !== req.path || !PASS_PAGE.test(req.path)) return next()
    if (req.headers.cookie?.includes('__toast=')) return next()
    version(req.path.slice(3))
      .then(async (current) => {
        if (!current) return null
        const cached = entries.get(req.path)
        if (cached?.version === current) return cached
        // Concurrent misses of one pass share one render.
        const renderKey = `${req.path} ${current}`
        let pending = renders.get(renderKey)
        if (!pending) {
          pending = render(req, current).finally(() => renders.delete(renderKey))
          renders.set(renderKey, pending)
        }
        return pending
      })
      .then((entry) => (entry ? sendCachedRender(res, entry) : next()))
      .catch(next)
  }
}
