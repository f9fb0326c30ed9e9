import { Link } from '@remix-run/react'
import { useEffect } from 'react'
import { CHUNK_RELOAD_DELAY_MS } from '#app/utils/chunk-error.ts'

/**
 * Where a screen sits: a page of its own (`main`), or inside a layout whose chrome already has the page's `main`
 * (one main landmark a page).
 */
export type ScreenLandmark = 'main' | 'div'

/** The specification's failure screen; after a failed chunk load it also reloads by itself. */
export function ErrorScreen({
  autoReload = false,
  as: Landmark = 'main',
}: {
  autoReload?: boolean
  as?: ScreenLandmark
}) {
  useEffect(() => {
    if (!autoReload) return
    const timer = window.setTimeout(() => window.location.reload(), CHUNK_RELOAD_DELAY_MS)
    return () => window.clearTimeout(timer)
  }, [autoReload])

  return (
    <Landmark className="error-screen" role="alert">
      <h1>Something went wrong</h1>
      <p>An unexpected error has occurred. Try refreshing the page.</p>
      {/* A plain link to the current address reloads without JavaScript too. */}
      <a
        className="button"
        href=""
        onClick={(event) => {
          event.preventDefault()
          window.location.reload()
        }}
      >
        Reload Page
      </a>
    </Landmark>
  )
}

export function NotFoundScreen({ as: Landmark = 'main' }: { as?: ScreenLandmark }) {
  return (
    <Landmark className="error-screen">
      <p className="eyebrow">Error 404</p>
      <h1>We can't find that page</h1>
      <p>The address may be mistyped, or the page may have moved. These links will get you back on track.</p>
      <ul className="link-list">
        <li>
          <Link to="/">Stampwise home</Link>
        </li>
        <li>
          <Link to="/blog">Blog</Link>
        </li>
        <li>
          <Link to="/contacts">Contact support</Link>
        </li>
      </ul>
    </Landmark>
  )
}

/** An owner's page opened by a staff member: not theirs (404), and their counter one tap away. */
export function StaffNotHereScreen({ as: Landmark = 'main' }: { as?: ScreenLandmark }) {
  return (
    <Landmark className="error-screen">
      <p className="eyebrow">Error 404</p>
      <h1>This page is for the business owner</h1>
      <p>Your staff account opens the cards you stamp. Links the owner uses lead to pages only they can see.</p>
      <Link to="/staff" className="button">
        Back to your counter
      </Link>
    </Landmark>
  )
}

/** A page the signed-in user may not open (an owner on an admin page): say so, and offer the way back. */
export function ForbiddenScreen({ message, as: Landmark = 'main' }: { message: string; as?: ScreenLandmark }) {
  return (
    <Landmark className="error-screen">
      <p className="eyebrow">Error 403</p>
      <h1>You can't open this page</h1>
      <p>{message}</p>
      <ul className="link-list">
        <li>
          <Link to="/account">My account</Link>
        </li>
        <li>
          <Link to="/">Stampwise home</Link>
        </li>
      </ul>
    </Landmark>
  )
}

/** A form sent with more than the server takes (a photo far over the logo's 2 MB): nothing was saved. */
export function TooLargeScreen({ message, as: Landmark = 'main' }: { message: string; as?: ScreenLandmark }) {
  return (
    <Landmark className="error-screen" role="alert">
      <p className="eyebrow">Error 413</p>
      <h1>Too much to send</h1>
      <p>{message}</p>
      {/* The page's own address opens the form again. */}
      <a className="button" href="">
        Back to the page
      </a>
    </Landmark>
  )
}
