import { Form, Link, useLocation } from '@remix-run/react'
import { type NoticeSummary } from '#app/types/notices.ts'
import { NoticeTime } from './notice-time.tsx'

export const NOTIFICATIONS_PATH = '/account/notifications'

/**
 * The header's bell: a <details> popover (opens without JavaScript) with the unread count, the newest notices
 * linking where they point, 'Mark all as read' (a plain form that comes back to this page) and the full list.
 */
export function NotificationBell({ summary }: { summary: NoticeSummary }) {
  const { pathname, search } = useLocation()
  const { unreadCount, latest } = summary
  const shownCount = unreadCount > 99 ? '99+' : String(unreadCount)
  return (
    <details className="notification-bell">
      <summary className="notification-bell__toggle">
        <BellIcon />
        <span className="visually-hidden">{unreadCount ? `Notifications, ${shownCount} unread` : 'Notifications'}</span>
        {unreadCount ? (
          <span className="notification-bell__badge" aria-hidden="true">
            {shownCount}
          </span>
        ) : null}
      </summary>
      <div className="notification-bell__panel">
        <p className="notification-bell__heading">Notifications</p>
        {latest.length ? (
          <ul className="notice-list notice-list--compact">
            {latest.map((notice) => (
              <li key={notice.id} className={notice.read ? 'notice' : 'notice notice--unread'}>
                <Link to={notice.link ?? NOTIFICATIONS_PATH}>
                  {notice.read ? null : <span className="visually-hidden">Unread: </span>}
                  {notice.message}
                </Link>
                <NoticeTime iso={notice.createdAt} />
              </li>
            ))}
          </ul>
        ) : (
          <p className="notice-empty">No notifications yet.</p>
        )}
        <div className="notification-bell__actions">
          {unreadCount ? (
            <Form method="POST" action={NOTIFICATIONS_PATH}>
              <input type="hidden" name="intent" value="mark-all-read" />
              <input type="hidden" name="redirectTo" value={`${pathname}${search}`} />
              <button type="submit" className="button button--ghost">
                Mark all as read
              </button>
            </Form>
          ) : null}
          <Link to={NOTIFICATIONS_PATH}>See all notifications</Link>
        </div>
      </div>
    </details>
  )
}

function BellIcon() {
  return (
    <svg
      aria-hidden="true"
      width="24"
      height="24"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
    >
      <path d="M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9" strokeLinecap="round" strokeLinejoin="round" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  )
}
