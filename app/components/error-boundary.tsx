import { isRouteErrorResponse, useRouteError, type ErrorResponse } from '@remix-run/react'
import { useEffect, type ReactNode } from 'react'
import { isChunkLoadError } from '#app/utils/chunk-error.ts'
import { STAFF_NOT_HERE } from '#app/utils/staff-not-here.ts'
import {
  ErrorScreen,
  ForbiddenScreen,
  NotFoundScreen,
  StaffNotHereScreen,
  TooLargeScreen,
  type ScreenLandmark,
} from './error-screens.tsx'

type StatusHandler = (error: ErrorResponse) => ReactNode
type StatusHandlers = Partial<Record<number, StatusHandler>>

/** A refusal's message: a plain string, or the JSON calls' shape (`{message}`) the request guards send. */
function refusalMessage(data: unknown): string | null {
  const message = typeof data === 'string' ? data : (data as { message?: unknown } | null)?.message
  return typeof message === 'string' && message ? message : null
}

/** The site's screens by status: a page of its own (root) or inside a layout's chrome (account, admin, onboarding). */
function siteStatusHandlers(as: ScreenLandmark): StatusHandlers {
  return {
    // A staff member on an owner's page (a link the owner shared): a 404 as for any record not theirs, with the way
    // back to their counter (issue 30, item 7).
    404: (error) => (error.data === STAFF_NOT_HERE ? <StaffNotHereScreen as={as} /> : <NotFoundScreen as={as} />),
    403: (error) => (
      <ForbiddenScreen as={as} message={refusalMessage(error.data) ?? 'Your account does not have access to it.'} />
    ),
    // The request guards' answer to a body over its limit (request-guards.server.ts), sent with JavaScript.
    413: (error) => {
      const message = refusalMessage(error.data) ?? 'There was too much to send, so nothing was saved.'
      return <TooLargeScreen as={as} message={message} />
    },
  }
}

/**
 * The one error boundary (after epic-stack's GeneralErrorBoundary): a status answer (a thrown Response) goes to the
 * route's handler for that status, else to the site's screen for it (404, 403, 413); any other status and any crash
 * show the failure screen (reloading by itself after a failed chunk load). A route that words only its own statuses
 * sets `passOnOthers`: every other error goes on to the boundary above (its layout's, or the root's), as before.
 * `as="div"` inside a layout, whose chrome already holds the page's `main`.
 */
export function GeneralErrorBoundary({
  statusHandlers,
  passOnOthers = false,
  as = 'main',
}: {
  statusHandlers?: StatusHandlers
  passOnOthers?: boolean
  as?: ScreenLandmark
}) {
  const error = useRouteError()
  useEffect(() => {
    // Only unexpected errors are reported; a 404 or 403 answer is the app working as intended. (An error passed on
    // never gets here: the boundary that shows it reports it.)
    if (isRouteErrorResponse(error) || !window.ENV?.SENTRY_DSN) return
    void import('#app/utils/monitoring.client.ts').then(({ reportBoundaryError }) => reportBoundaryError(error))
  }, [error])

  if (isRouteErrorResponse(error)) {
    const handler = statusHandlers?.[error.status] ?? (passOnOthers ? undefined : siteStatusHandlers(as)[error.status])
    if (handler) return handler(error)
  }
  if (passOnOthers) throw error
  return <ErrorScreen as={as} autoReload={isChunkLoadError(error)} />
}
