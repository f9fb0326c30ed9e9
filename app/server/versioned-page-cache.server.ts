import { createRequestHandler, type AppLoadContext, type ServerBuild } from '@remix-run/node'
import { renderForCache, sendCachedRender, type CachedRender } from './cached-render.server.ts'
import { renderStore } from './render-store.server.ts'
import type express from 'express'

/**
 * Pages rendered once per version of the data they show: the owner's account home, the holder's pass. Rendering
 * costs milliseconds of CPU; `version` answers in one indexed query whether anything on the page changed (for a
 * signed-in page it also checks the session). A request whose version matches the last render gets that render,
 * with its own CSP nonce. Anything else — another version, a toast cookie, a query string, a non-200 answer or a
 * Set-Cookie — goes through Remix as usual.
 */
export type PageVersion = {
  /** Whose render this is: the same key always means the same page for the same viewer. */
  key: string
  version: string
}

type Entry = CachedRender & { version: string }

const MAX_ENTRIES = 2_000
/** About 4–8 MiB of heap per cache (one or two bytes a character). */
const MAX_CHARS = 4_000_000

export function versionedPageCache({
  build,
  mode,
  paths,
  version,
  forwardCookie,
  loadContext,
}: {
  build: ServerBuild
  mode: string
  paths: (pathname: string) => boolean
  version: (req: express.Request) => Promise<PageVersion | null>
  /** Signed-in pages render with the viewer's cookie; public ones without any. */
  forwardCookie: boolean
  loadContext: Omit<AppLoadContext, 'cspNonce'>
}): express.RequestHandler {
  const handle = createRequestHandler(build, mode)
  const entries = renderStore<Entry>({ maxEntries: MAX_ENTRIES, maxChars: MAX_CHARS })
  const renders = new Map<string, Promise<Entry | null>>()

  async function render(req: express.Request, current: PageVersion): Promise<Entry | null> {
    const headers: Record<string, string> = {
      accept: 'text/html',
      'user-agent': req.headers['user-agent'] ?? '',
      'x-stampwise-client-ip': String(req.headers['x-stampwise-client-ip'] ?? ''),
    }
    if (forwardCookie) headers.cookie = req.headers.cookie ?? ''
    const rendered = await renderForCache(handle, req, headers, loadContext)
    if (!rendered) return null
    const entry: Entry = { ...rendered, version: current.version }
    entries.set(current.key, entry)
    return entry
  }

  return (req, res, next) => {
    if (req.method !== 'GET' || req.originalUrl !== req.path || !paths(req.path)) return next()
    if (req.headers.cookie?.includes('__toast=')) return next()
    version(req)
      .then(async (current) => {
        if (!current) return null
        const cached = entries.get(current.key)
        if (cached?.version === current.version) return cached
        // Concurrent misses of one page share one render.
        const renderKey = `${current.key} ${current.version}`
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
