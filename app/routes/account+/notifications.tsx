import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { FormErrors } from '#app/components/forms.tsx'
import { NoticeTime } from '#app/components/notice-time.tsx'
import { NOTIFICATIONS_PATH } from '#app/components/notification-bell.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId, safeRedirectPath } from '#app/services/auth/session.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { listNotices, markAllNoticesRead, markNoticeRead, type NoticeView } from '#models/notice.server.ts'

export const handle: AccountHandle = { title: 'Notifications', back: 'previous' }

const pageAddress = (page: number) => (page > 1 ? `${NOTIFICATIONS_PATH}?page=${page}` : NOTIFICATIONS_PATH)

/** ?page= that is not a whole number counts as the first page; past the end, the last. */
function requestedPage(request: Request) {
  const page = Number.parseInt(new URL(request.url).searchParams.get('page') ?? '1', 10)
  return Number.isSafeInteger(page) && page > 0 ? page : 1
}

export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  return listNotices(userId, { page: requestedPage(request) })
}

/** intent=mark-read (noticeId) or mark-all-read; back to `redirectTo` (the bell's page) or this list's page. */
export async function action({ request }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const formData = await readFormData(request)
  const back = safeRedirectPath(formData.get('redirectTo'), pageAddress(requestedPage(request)))
  const intent = formData.get('intent')
  if (intent === 'mark-all-read') {
    await markAllNoticesRead(userId)
    return redirectWithToast(back, { message: 'All notifications marked as read' }, { status: 303 })
  }
  if (intent === 'mark-read') {
    const noticeId = formData.get('noticeId')
    const found = typeof noticeId === 'string' && (await markNoticeRead(userId, noticeId))
    if (!found) throw notFound('Notification not found')
    return redirect(back, 303)
  }
  return data({ error: 'We could not understand that request. Please use the buttons on this page.' }, { status: 400 })
}

export default function Notifications() {
  const { notices, page, pageCount, unreadCount } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  return (
    <div className="account-page">
      <FormErrors id="notice-errors" errors={actionData?.error ? [actionData.error] : undefined} />
      <div className="notices-header">
        <h1>Notifications</h1>
        {unreadCount ? (
          <Form method="POST">
            <input type="hidden" name="intent" value="mark-all-read" />
            <button type="submit" className="button button--ghost">
              Mark all as read
            </button>
          </Form>
        ) : null}
      </div>
      {notices.length ? (
        <ul className="notice-list">
          {notices.map((notice) => (
            <NoticeItem key={notice.id} notice={notice} />
          ))}
        </ul>
      ) : (
        <div className="panel notice-empty">
          <p>No notifications yet.</p>
          <p>
            We let you know here when your trial or plan is about to end, a payment is confirmed or a push has gone out.
          </p>
        </div>
      )}
      {pageCount > 1 ? (
        <nav className="pager" aria-label="Pages">
          {page > 1 ? <Link to={pageAddress(page - 1)}>← Newer</Link> : <span />}
          <span>{`Page ${page} of ${pageCount}`}</span>
          {page < pageCount ? <Link to={pageAddress(page + 1)}>Older →</Link> : <span />}
        </nav>
      ) : null}
    </div>
  )
}

function NoticeItem({ notice }: { notice: NoticeView }) {
  return (
    <li className={notice.read ? 'notice panel' : 'notice notice--unread panel'}>
      <p className="notice__message">
        {notice.read ? null : <span className="notice__new">New</span>}
        {notice.message}
      </p>
      <div className="notice__meta">
        <NoticeTime iso={notice.createdAt} />
        {notice.link ? <Link to={notice.link}>Open</Link> : null}
        {notice.read ? null : (
          <Form method="POST">
            <input type="hidden" name="intent" value="mark-read" />
            <input type="hidden" name="noticeId" value={notice.id} />
            <button type="submit" className="link-button">
              Mark as read
            </button>
          </Form>
        )}
      </div>
    </li>
  )
}

export const meta: MetaFunction = () => [{ title: 'Notifications — Stampwise' }]
