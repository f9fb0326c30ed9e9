import { type LoaderFunctionArgs } from '@remix-run/node'
import { holdersCsv } from '#app/services/exports/card-exports.server.ts'

/** The card's holders as a CSV download, streamed a page at a time (app/services/exports/). */
export function loader(args: LoaderFunctionArgs) {
  return holdersCsv(args)
}
