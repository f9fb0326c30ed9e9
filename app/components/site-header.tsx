import { Link } from '@remix-run/react'
import { Logo } from './logo.tsx'

const MENU = [
  { label: 'Product', href: '/#product' },
  { label: 'Pricing', href: '/#pricing' },
  { label: 'Help center', href: '/#help' },
  { label: 'Blog', href: '/blog' },
] as const

/** The public pages' top menu. On phones it folds into a <details> menu, which opens without JavaScript. */
export function SiteHeader() {
  const links = MENU.map((item) => (
    <li key={item.href}>
      <Link to={item.href}>{item.label}</Link>
    </li>
  ))
  return (
    <header className="site-header">
      <div className="container site-header__inner">
        <Link to="/" className="site-header__brand" aria-label="Stampwise home">
          <Logo />
        </Link>
        <nav aria-label="Main" className="site-nav site-nav--wide">
          <ul>{links}</ul>
        </nav>
        <Link to="/login" className="button site-header__cta">
          Log in / Register
        </Link>
        <details className="site-nav site-nav--narrow">
          <summary>
            <span className="visually-hidden">Open the menu</span>
            <svg aria-hidden="true" width="24" height="24" viewBox="0 0 24 24">
              <path d="M3 6h18M3 12h18M3 18h18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
          </summary>
          <nav aria-label="Main (compact)">
            <ul>
              {links}
              <li>
                <Link to="/login">Log in / Register</Link>
              </li>
            </ul>
          </nav>
        </details>
      </div>
    </header>
  )
}
