import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useLocation, type MetaFunction } from '@remix-run/react'
import { FormErrors } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { AdminActionError, setFeedbackHandled } from '#app/services/admin/admin-actions.server.ts'
import { requireAdmin } from '#app/services/admin/admin.server.ts'
import { FeedbackActionSchema } from '#app/utils/admin-schemas.ts'
import { FEEDBACK_PER_PAGE, listFeedback, type FeedbackFilter } from '#models/admin-feedback.server.ts'
import { formatWhen } from './__user-sections.tsx'

/**
 * /admin/feedback: what owners and visitors sent from /feedback, /contacts and /account/contact-us, newest first,
 * 50 a page. Marking a message handled (or open again) is audited but asks for no extra confirmation: it changes
 * nothing for the sender and the other button undoes it.
 */
const FILTERS: { value: FeedbackFilter; label: string }[] = [
  { value: 'open', label: 'Open' },
  { value: 'handled', label: 'Handled' },
  { value: 'all', label: 'All' },
]
const SOURCE_TEXT: Record<string, string> = {
  feedback: 'Feedback form',
  contacts: 'Contacts page',
  account: 'Account: contact us',
}

function readQuery(url: URL) {
  const status = url.searchParams.get('status')
  const filter = FILTERS.some((entry) => entry.value === status) ? (status as FeedbackFilter) : 'open'
  const page = Math.min(10_000, Math.max(1, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1))
  return { filter, page }
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request)
  const { filter, page } = readQuery(new URL(request.url))
  const { items, total } = await listFeedback({ filter, page })
  return { filter, page, total, pages: Math.max(1, Math.ceil(total / FEEDBACK_PER_PAGE)), items }
}

export async function action({ request }: ActionFunctionArgs) {
  const actorId = await requireAdmin(request)
  const submission = parseWithZod(await readFormData(request), { schema: FeedbackActionSchema })
  if (submission.status !== 'success') return formReply({ result: submission.reply() })
  const { intent, messageId } = submission.value
  const handled = intent === 'handle'
  try {
    const changed = await setFeedbackHandled({ actorId, messageId, handled })
    const url = new URL(request.url)
    const message = changed
      ? handled
        ? 'Marked handled.'
        : 'Reopened.'
      : handled
        ? 'It was already handled.'
        : 'It was already open.'
    return redirectWithToast(`${url.pathname}${url.search}`, { message })
  } catch (error) {
    if (!(error instanceof AdminActionError)) throw error
    return formReply({ result: submission.reply({ formErrors: [error.message] }) })
  }
}

export default function AdminFeedback() {
  const { filter, page, pages, total, items } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const { search } = useLocation()
  const errors = actionData?.result ? (Object.values(actionData.result.error ?? {}).flat() as string[]) : undefined
  const pageLink = (to: number) => `?${new URLSearchParams({ status: filter, page: String(to) })}`
  return (
    <>
      <h1>Feedback</h1>
      <nav aria-label="Filter" className="admin-filters">
        {FILTERS.map((entry) => (
          <Link
            key={entry.value}
            to={`?status=${entry.value}`}
            aria-current={entry.value === filter ? 'page' : undefined}
          >
            {entry.label}
          </Link>
        ))}
      </nav>
      <FormErrors id="feedback-errors" errors={errors} />
      <p>
        {total} {filter === 'all' ? '' : `${filter} `}message{total === 1 ? '' : 's'}.
      </p>
      {items.length ? (
        <ol className="admin-feedback">
          {items.map((item) => (
            <li key={item.id} className="panel">
              <p className="admin-muted">
                {SOURCE_TEXT[item.source] ?? item.source} · {formatWhen(item.createdAt)} · from{' '}
                {item.userId ? (
                  <Link to={`/admin/users/${item.userId}`}>{item.email ?? 'an owner'}</Link>
                ) : (
                  (item.email ?? 'unknown')
                )}
                {item.name ? ` (${item.name})` : ''}
              </p>
              {item.subject ? <h2>{item.subject}</h2> : null}
              <p className="admin-feedback__message">{item.message}</p>
              <Form method="POST" action={`/admin/feedback${search}`}>
                <input type="hidden" name="messageId" value={item.id} />
                {item.handledAt ? (
                  <p>
                    Handled {formatWhen(item.handledAt)} by {item.handledByEmail ?? 'a former admin'}.{' '}
                    <button type="submit" name="intent" value="reopen" className="button button--ghost">
                      Reopen
                    </button>
                  </p>
                ) : (
                  <button type="submit" name="intent" value="handle" className="button">
                    Mark handled
                  </button>
                )}
              </Form>
            </li>
          ))}
        </ol>
      ) : (
        <p>Nothing here.</p>
      )}
      {pages > 1 ? (
        <nav aria-label="Pages" className="admin-pages">
          {page > 1 ? <Link to={pageLink(page - 1)}>← Newer</Link> : null}
          <span>
            Page {page} of {pages}
          </span>
          {page < pages ? <Link to={pageLink(page + 1)}>Older →</Link> : null}
        </nav>
      ) : null}
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Feedback — Stampwise admin' }]
