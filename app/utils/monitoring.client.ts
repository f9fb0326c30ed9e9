import { useLocation, useMatches } from '@remix-run/react'
import * as Sentry from '@sentry/remix'
import { useEffect } from 'react'

/** Error reporting in the browser, with the specification's sample rates (section 9). */
export function initMonitoring(dsn: string) {
  Sentry.init({
    dsn,
    environment: window.ENV.MODE,
    integrations: [
      Sentry.browserTracingIntegration({ useEffect, useLocation, useMatches }),
      Sentry.replayIntegration(),
    ],
    tracesSampleRate: 1,
    replaysSessionSampleRate: 0.1,
    replaysOnErrorSampleRate: 1,
  })
}

export function reportBoundaryError(error: unknown) {
  Sentry.captureRemixErrorBoundaryError(error)
}
