import { type LoaderFunctionArgs } from '@remix-run/node'
import { csvDownload } from '#app/server/download.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { stampsCsv } from '#app/services/exports/card-exports.server.ts'

/** The card's stamps, undos and redemptions as a CSV download, streamed a page at a time (app/services/exports/). */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const reading = { signal: request.signal, clientDrained: context.clientDrained }
  const { filename, csv } = await stampsCsv({ userId, cardId: params.cardId, reading })
  return csvDownload(filename, csv)
}
