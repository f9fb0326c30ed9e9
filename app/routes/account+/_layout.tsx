import { type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import cardPreviewStylesHref from '#app/styles/card-preview.css?url'
import { Outlet, useLoaderData, useLocation, useMatches } from '@remix-run/react'
import { useEffect } from 'react'
import { AccountHeader } from '#app/components/account-header.tsx'
import { Celebration } from '#app/components/celebration.tsx'
import { isAccountHandle, type AccountHandle } from '#app/utils/account-handle.ts'
import { loadAccountHeader } from '#app/services/accounts/account-header.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import accountStylesHref from '#app/styles/account.css?url'

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
  const { pathname } = useLocation()
  const handle = [...matches].reverse().map((match) => match.handle).find(isAccountHandle) as AccountHandle | undefined

  // The specification: the page scrolls to the top on every path change (not on a search or hash change).
  useEffect(() => {
    window.scrollTo(0, 0)
  }, [pathname])

  return (
    <div className="account-shell">
      <AccountHeader header={header} handle={handle ?? { back: 'previous' }} pathname={pathname} />
      <main id="content" className="container account-main">
        <Outlet />
      </main>
      <Celebration occasionId={header.celebration} />
    </div>
  )
}
