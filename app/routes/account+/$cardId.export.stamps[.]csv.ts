import { type LoaderFunctionArgs } from '@remix-run/node'
import { stampsCsv } from '#app/services/exports/card-exports.server.ts'

/** The card's stamps, undos and redemptions as a CSV download, streamed a page at a time (app/services/exports/). */
export function loader(args: LoaderFunctionArgs) {
  return stampsCsv(args)
}
