import { Link } from '@remix-run/react'
import { useEffect } from 'react'
import { CHUNK_RELOAD_DELAY_MS } from '#app/utils/chunk-error.ts'

/** The specification's failure screen; after a failed chunk load it also reloads by itself. */
export function ErrorScreen({ autoReload = false }: { autoReload?: boolean }) {
  useEffect(() => {
    if (!autoReload) return
    const timer = window.setTimeout(() => window.location.reload(), CHUNK_RELOAD_DELAY_MS)
    return () => window.clearTimeout(timer)
  }, [autoReload])

  return (
    <main className="error-screen" role="alert">
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
    </main>
  )
}

export function NotFoundScreen() {
  return (
    <main className="error-screen">
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
    </main>
  )
}

/** A page the signed-in user may not open (an owner on an admin page): say so, and offer the way back. */
export function ForbiddenScreen({ message }: { message: string }) {
  return (
    <main className="error-screen">
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
    </main>
  )
}

/** A form sent with more than the server takes (a photo far over the logo's 2 MB): nothing was saved. */
export function TooLargeScreen({ message }: { message: string }) {
  return (
    <main className="error-screen" role="alert">
      <p className="eyebrow">Error 413</p>
      <h1>Too much to send</h1>
      <p>{message}</p>
      {/* The page's own address opens the form again. */}
      <a className="button" href="">
        Back to the page
      </a>
    </main>
  )
}
