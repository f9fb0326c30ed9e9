import { type LoaderFunctionArgs } from '@remix-run/node'
import { activityCsv } from '#app/services/activity/activity-export.server.ts'

/** The activity with the page's filters as a CSV download, streamed a page at a time (app/services/activity/). */
export function loader(args: LoaderFunctionArgs) {
  return activityCsv(args)
}
