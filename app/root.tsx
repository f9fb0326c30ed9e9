import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useMatches,
  useRouteError,
  useRouteLoaderData,
  type MetaFunction,
} from '@remix-run/react'
import { data, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { useEffect, type ReactNode } from 'react'
import { ErrorScreen, ForbiddenScreen, NotFoundScreen, TooLargeScreen } from './components/error-screens.tsx'
import { Toaster } from './components/toaster.tsx'
import appStylesHref from './styles/app.css?url'
import { isChunkLoadError } from './utils/chunk-error.ts'
import { getPublicEnv } from './server/env.server.ts'
import { useNonce } from './utils/nonce-provider.ts'
import { readToast } from './server/toast.server.ts'

export async function loader({ request }: LoaderFunctionArgs) {
  const { toast, clearHeader } = await readToast(request)
  return data({ ENV: getPublicEnv(), toast }, clearHeader ? { headers: { 'Set-Cookie': clearHeader } } : undefined)
}

export const links: LinksFunction = () => [{ rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' }]

/**
 * A route whose handle has `ownStylesOnly: true` (the holder's pages, which must stay small for old phones on slow
 * networks) does not get the site's stylesheet; every other page does.
 */
function useSiteStylesheet() {
  return !useMatches().some((match) => (match.handle as { ownStylesOnly?: boolean } | undefined)?.ownStylesOnly)
}

export const meta: MetaFunction = () => [
  { title: 'Stampwise — loyalty stamp cards for small businesses' },
  {
    name: 'description',
    content: 'Digital stamp cards your customers keep on their phone, with push messages that bring them back.',
  },
]

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce()
  const data = useRouteLoaderData<typeof loader>('root')
  const siteStylesheet = useSiteStylesheet()
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#17233b" />
        <Meta />
        {siteStylesheet ? <link rel="stylesheet" href={appStylesHref} /> : null}
        <Links />
      </head>
      <body>
        {children}
        <script
          nonce={nonce}
          // Public settings only (getPublicEnv): no secret ever reaches the page.
          dangerouslySetInnerHTML={{ __html: `window.ENV = ${JSON.stringify(data?.ENV ?? {})}` }}
        />
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  )
}

export default function App() {
  const { toast } = useLoaderData<typeof loader>()
  return (
    <>
      <Outlet />
      <Toaster toast={toast} />
    </>
  )
}

/** A refusal's message: a plain string, or the JSON calls' shape (`{message}`) the request guards send. */
function refusalMessage(data: unknown): string | null {
  const message = typeof data === 'string' ? data : (data as { message?: unknown } | null)?.message
  return typeof message === 'string' && message ? message : null
}

export function ErrorBoundary() {
  const error = useRouteError()
  useEffect(() => {
    // Only unexpected errors are reported; a 404 or 403 answer is the app working as intended.
    if (isRouteErrorResponse(error) || !window.ENV?.SENTRY_DSN) return
    void import('./utils/monitoring.client.ts').then(({ reportBoundaryError }) => reportBoundaryError(error))
  }, [error])
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundScreen />
  if (isRouteErrorResponse(error) && error.status === 403) {
    return <ForbiddenScreen message={refusalMessage(error.data) ?? 'Your account does not have access to it.'} />
  }
  // The request guards' answer to a body over its limit (request-guards.server.ts), sent with JavaScript.
  if (isRouteErrorResponse(error) && error.status === 413) {
    return <TooLargeScreen message={refusalMessage(error.data) ?? 'There was too much to send, so nothing was saved.'} />
  }
  return <ErrorScreen autoReload={isChunkLoadError(error)} />
}
