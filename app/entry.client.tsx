import { RemixBrowser } from '@remix-run/react'
import { startTransition, StrictMode } from 'react'
import { hydrateRoot } from 'react-dom/client'

// Monitoring loads only where it is configured, so everyone else downloads none of it.
if (window.ENV?.SENTRY_DSN) {
  void import('./utils/monitoring.client.ts').then(({ initMonitoring }) => initMonitoring(window.ENV.SENTRY_DSN!))
}

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <RemixBrowser />
    </StrictMode>,
  )
})
