import { Link } from '@remix-run/react'
import { company } from '#app/utils/company.ts'

export function SiteFooter({ supportEmail }: { supportEmail: string }) {
  const year = new Date().getUTCFullYear()
  return (
    <footer className="site-footer">
      <div className="container site-footer__grid">
        <nav aria-label="Footer">
          <ul className="site-footer__links">
            <li>
              <Link to="/blog">Blog</Link>
            </li>
            <li>
              <Link to="/#pricing">Pricing</Link>
            </li>
            <li>
              <Link to="/about">About us</Link>
            </li>
            <li>
              <Link to="/contacts">Support</Link>
            </li>
            <li>
              <Link to="/feedback">Feedback</Link>
            </li>
            <li>
              <Link to="/privacy-policy">Privacy policy</Link>
            </li>
            <li>
              <Link to="/terms">Terms of service</Link>
            </li>
          </ul>
        </nav>
        <div>
          <p className="site-footer__contact">
            Questions? Write to <a href={`mailto:${supportEmail}`}>{supportEmail}</a>
          </p>
          <ul className="site-footer__social" aria-label="Stampwise on social media">
            {company.social.map((network) => (
              <li key={network.name}>
                <a href={network.href} rel="noopener noreferrer" target="_blank">
                  {network.name}
                </a>
              </li>
            ))}
          </ul>
        </div>
      </div>
      <div className="container site-footer__legal">
        <p>{company.registration}</p>
        <p>
          © {year} {company.legalName}. All rights reserved.
        </p>
      </div>
    </footer>
  )
}
