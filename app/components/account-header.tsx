import { Form, Link, useNavigate } from '@remix-run/react'
import { type MouseEvent } from 'react'
import { type AccountHeaderData } from '#app/types/account-header.ts'
import { parentPath, type AccountHandle } from '#app/utils/account-handle.ts'
import { FeedbackSender } from './feedback-sender.tsx'
import { Logo } from './logo.tsx'
import { NotificationBell } from './notification-bell.tsx'
import { PlanBox } from './plan-box.tsx'

/**
 * The account header of the specification: logo → /account, back button, page title, profile photo with the
 * profile menu (a <details> element, so it opens without JavaScript).
 */
export function AccountHeader({
  header,
  handle,
  pathname,
}: {
  header: AccountHeaderData
  handle: AccountHandle
  pathname: string
}) {
  return (
    <header className="account-header">
      <div className="container account-header__inner">
        <Link to="/account" className="account-header__brand" aria-label="Stampwise account home">
          <Logo />
        </Link>
        <div className="account-header__tools">
          <PlanBox title={header.plan.title} subtitle={header.plan.subtitle} />
          <FeedbackSender />
          <NotificationBell summary={header.notices} />
          <ProfileMenu header={header} />
        </div>
      </div>
      <div className="container account-header__title-row">
        <BackButton handle={handle} pathname={pathname} />
        {handle.title ? <p className="account-header__title">{handle.title}</p> : null}
      </div>
    </header>
  )
}

function BackButton({ handle, pathname }: { handle: AccountHandle; pathname: string }) {
  const navigate = useNavigate()
  if (handle.back === 'hidden') return null
  const href = handle.back === 'account' ? '/account' : parentPath(pathname)
  const goBack = (event: MouseEvent<HTMLAnchorElement>) => {
    // One step back in the browser's own history when the previous page is ours; otherwise the link's address.
    if (handle.back !== 'previous' || !(window.history.state?.idx > 0)) return
    event.preventDefault()
    navigate(-1)
  }
  return (
    <Link to={href} className="back-button" onClick={goBack}>
      <span aria-hidden="true">←</span> Back
    </Link>
  )
}

function ProfileMenu({ header }: { header: AccountHeaderData }) {
  const { user } = header
  return (
    <details className="profile-menu">
      <summary className="profile-menu__toggle">
        <img
          className="profile-photo"
          src={user.logoUrl ?? '/images/default-profile.svg'}
          alt=""
          width={40}
          height={40}
        />
        <span className="visually-hidden">Open the profile menu for {user.email}</span>
      </summary>
      <nav className="profile-menu__panel" aria-label="Profile">
        <p className="profile-menu__email">{user.email}</p>
        <ul>
          <li>
            <Link to="/account/profile">Profile settings</Link>
          </li>
          {header.plan.inTrial ? null : (
            <li>
              <Link to="/account/plan">Plan details</Link>
            </li>
          )}
          <li>
            <Link to="/account/team">Team</Link>
          </li>
          <li>
            <Link to="/account/locations">Locations</Link>
          </li>
          <li>
            <Link to="/account/activity">Activity</Link>
          </li>
          <li>
            <Link to="/account/help">FAQ</Link>
          </li>
          <li>
            <Link to="/account/contact-us">Contact us</Link>
          </li>
          <li>
            <Form method="POST" action="/logout">
              <button type="submit" className="profile-menu__logout">
                Log Out
              </button>
            </Form>
          </li>
        </ul>
      </nav>
    </details>
  )
}
