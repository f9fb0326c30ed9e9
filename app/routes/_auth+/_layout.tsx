import { Link, Outlet, useMatches, useNavigate } from '@remix-run/react'
import { Logo } from '#app/components/logo.tsx'

/** Each auth screen names, in its handle, where its Back button leads when there is no history to go back to. */
export type AuthHandle = { backTo: string }

export default function AuthLayout() {
  const matches = useMatches()
  const handle = matches.at(-1)?.handle as Partial<AuthHandle> | undefined
  return (
    <div className="auth-shell">
      <header className="auth-header">
        <BackLink to={handle?.backTo ?? '/'} />
        <Link to="/" className="auth-header__logo" aria-label="Stampwise home">
          <Logo />
        </Link>
      </header>
      <main id="content" className="auth-main">
        <div className="auth-card">
          <Outlet />
        </div>
      </main>
      <footer className="auth-footer">
        <nav aria-label="Legal">
          <Link to="/terms">Terms of use</Link>
          <Link to="/privacy-policy">Privacy policy</Link>
        </nav>
      </footer>
    </div>
  )
}

/**
 * A real link, so it works without JavaScript; with JavaScript it goes one step back in history, but only when the
 * visitor came from another page of this app (React Router counts the entries it made in history.state.idx).
 */
function BackLink({ to }: { to: string }) {
  const navigate = useNavigate()
  return (
    <Link
      to={to}
      className="auth-back"
      onClick={(event) => {
        const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0
        if (idx > 0) {
          event.preventDefault()
          navigate(-1)
        }
      }}
    >
      <span aria-hidden="true">←</span> Back
    </Link>
  )
}
