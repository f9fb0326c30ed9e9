import { data, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useMatches,
  useRouteLoaderData,
  type MetaFunction,
} from '@remix-run/react'
import { type ReactNode } from 'react'
import { GeneralErrorBoundary } from './components/error-boundary.tsx'
import { Toaster } from './components/toaster.tsx'
import { getPublicEnv } from './server/env.server.ts'
import { readToast } from './server/toast.server.ts'
import appStylesHref from './styles/app.css?url'
import { useNonce } from './utils/nonce-provider.ts'

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

/** An error no layout or route shows (a guest's 404, a refused 403, a crash): a page of its own. */
export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
