import { type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Outlet, useLoaderData, useLocation, useMatches, useRouteLoaderData } from '@remix-run/react'
import { useEffect, type ReactNode } from 'react'
import { AccountHeader } from '#app/components/account-header.tsx'
import { Celebration } from '#app/components/celebration.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { loadAccountHeader } from '#app/services/accounts/account-header.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import accountStylesHref from '#app/styles/account.css?url'
import cardPreviewStylesHref from '#app/styles/card-preview.css?url'
import { isAccountHandle, type AccountHandle } from '#app/utils/account-handle.ts'

/** Every /account page: signed-in only, with the account header (logo, plan box, bell, feedback, profile menu). */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  return loadAccountHeader(userId)
}

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: cardPreviewStylesHref },
  { rel: 'stylesheet', href: accountStylesHref },
]

export default function AccountLayout() {
  const header = useLoaderData<typeof loader>()
  const matches = useMatches()
  const handle = [...matches]
    .reverse()
    .map((match) => match.handle)
    .find(isAccountHandle) as AccountHandle | undefined
  return (
    <AccountShell header={header} handle={handle ?? { back: 'previous' }} celebration={header.celebration}>
      <Outlet />
    </AccountShell>
  )
}

/**
 * An error in an /account page shows inside the account chrome, its back button to the page above. When the
 * layout's own loader failed (the account is gone), there is no header to show: the page is the root's.
 */
export function ErrorBoundary() {
  const header = useRouteLoaderData<typeof loader>('routes/account+/_layout')
  if (!header) return <GeneralErrorBoundary />
  return (
    <AccountShell header={header} handle={{ back: 'previous' }} celebration={null}>
      <GeneralErrorBoundary as="div" />
    </AccountShell>
  )
}

type Header = ReturnType<typeof useLoaderData<typeof loader>>

function AccountShell({
  header,
  handle,
  celebration,
  children,
}: {
  header: Header
  handle: AccountHandle
  celebration: string | null
  children: ReactNode
}) {
  const { pathname } = useLocation()

  // The specification: the page scrolls to the top on every path change (not on a search or hash change).
  useEffect(() => {
    window.scrollTo(0, 0)
  }, [pathname])

  return (
    <div className="account-shell">
      <AccountHeader header={header} handle={handle} pathname={pathname} />
      <main id="content" className="container account-main">
        {children}
      </main>
      <Celebration occasionId={celebration} />
    </div>
  )
}
