import { type AppLoadContext, type ServerBuild } from '@remix-run/node'
import { publicPageCache } from '#app/server/public-page-cache.server.ts'
import { versionedPageCache } from '#app/server/versioned-page-cache.server.ts'
import { accountPageVersion, cardPageVersion } from '#app/services/accounts/account-page-version.server.ts'
import { getPassPageVersion } from '#models/pass.server.ts'
import type express from 'express'

/*
 * Which pages are answered from a render cache, and how each one's version is read (ADRs 009, 011, 014). server.ts
 * mounts the handlers in front of Remix, outside development only.
 */

/**
 * Public pages that look the same to every anonymous visitor (see public-page-cache.server.ts): the landing and
 * content pages, and the sign-in forms (a visitor with a session cookie goes through their loaders, which send a
 * signed-in owner on).
 */
const PUBLIC_PAGES = new Set([
  '/',
  '/about',
  '/terms',
  '/privacy-policy',
  '/blog',
  '/login',
  '/sign-up',
  '/forgot-password',
])
const isPublicPage = (pathname: string) => PUBLIC_PAGES.has(pathname) || /^\/blog\/[\w-]+$/.test(pathname)

// A holder's pass: /p/{uuid} (the page itself, not its manifest, icons or logo).
const PASS_PAGE = /^\/p\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
// An owner's card: /account/{uuid}, its insights over the default range (a query string is never cached).
const CARD_PAGE = /^\/account\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/

export function pageCaches({
  build,
  mode,
  loadContext,
}: {
  build: ServerBuild
  mode: string
  loadContext: Omit<AppLoadContext, 'cspNonce'>
}): express.RequestHandler[] {
  return [
    publicPageCache({ build, mode, paths: isPublicPage, loadContext }),
    versionedPageCache({
      build,
      mode,
      paths: (pathname) => pathname === '/account',
      version: async (req) => {
        if (!req.headers.cookie?.includes('__session=')) return null
        const current = await accountPageVersion(req.headers.cookie)
        return current && { key: `${current.userId} ${req.path}`, version: current.version }
      },
      forwardCookie: true,
      loadContext,
    }),
    versionedPageCache({
      build,
      mode,
      paths: (pathname) => CARD_PAGE.test(pathname),
      version: async (req) => {
        if (!req.headers.cookie?.includes('__session=')) return null
        const current = await cardPageVersion(req.headers.cookie, CARD_PAGE.exec(req.path)![1]!)
        return current && { key: `${current.userId} ${req.path}`, version: current.version }
      },
      forwardCookie: true,
      loadContext,
    }),
    versionedPageCache({
      build,
      mode,
      paths: (pathname) => PASS_PAGE.test(pathname),
      version: async (req) => {
        const version = await getPassPageVersion(req.path.slice('/p/'.length))
        return version === null ? null : { key: req.path, version }
      },
      forwardCookie: false,
      loadContext,
    }),
  ]
}
