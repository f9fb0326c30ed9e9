import { type LoaderFunctionArgs } from '@remix-run/node'
import { csvDownload } from '#app/server/download.server.ts'
import { textRefusal } from '#app/server/http-errors.server.ts'
import { activityCsv } from '#app/services/activity/activity-export.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'

/**
 * The activity with the page's filters as a CSV download, streamed a page at a time (app/services/activity/). A
 * filter the form could not have sent is a 400 with the reasons as text, a line each: a download has no page.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const ownerId = await requireUserId(request)
  const reading = { signal: request.signal, clientDrained: context.clientDrained }
  const file = await activityCsv(ownerId, new URL(request.url).searchParams, reading)
  if (!file.ok) return textRefusal(file.status, `${file.message}\n`)
  return csvDownload(file.filename, file.csv)
}
