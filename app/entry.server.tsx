import { PassThrough } from 'node:stream'
import {
  createReadableStreamFromReadable,
  type AppLoadContext,
  type EntryContext,
  type HandleErrorFunction,
} from '@remix-run/node'
import { RemixServer } from '@remix-run/react'
import { isbot } from 'isbot'
import { renderToPipeableStream } from 'react-dom/server'
import { isDatabaseUnavailable } from './server/database-outage.server.ts'
import { logger } from './server/logger.server.ts'
import { NonceProvider } from './utils/nonce-provider.ts'

export const streamTimeout = 5_000

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce ?? ''
  // Bots (and no-JavaScript clients reading the whole page) get the page once it is complete.
  const waitForAll = isbot(request.headers.get('user-agent')) || remixContext.isSpaMode
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={streamTimeout} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        [waitForAll ? 'onAllReady' : 'onShellReady']() {
          shellRendered = true
          const body = new PassThrough()
          responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          )
          pipe(body)
        },
        onShellError(error: unknown) {
          reject(error)
        },
        onError(error: unknown) {
          responseStatusCode = 500
          // Errors after the shell are streamed to the error boundary; log them once here.
          if (shellRendered) logger.error({ err: error }, 'error while streaming a page')
        },
      },
    )
    setTimeout(abort, streamTimeout + 1_000)
  })
}

export const handleError: HandleErrorFunction = (error, { request, context }) => {
  // Aborted requests (the browser navigated away) are not errors of ours.
  if (request.signal.aborted) return
  // The database out of reach is an outage, not a bug: the answer becomes a 503 (server-hooks.server.ts), /healthz
  // reports it.
  if (isDatabaseUnavailable(error)) {
    context.databaseUnavailable = true
    logger.warn({ err: error, url: request.url }, 'database unavailable')
    return
  }
  // Remix reports a legacy `?_data=` request (which our pages never make since single fetch; a hand-made or hostile
  // one can) through handleError as an Error; the request itself is answered normally, so it is no bug of ours.
  if (
    error instanceof Error &&
    error.message.startsWith('Warning: Single fetch-enabled apps should not be making ?_data')
  ) {
    logger.warn({ url: request.url }, 'legacy ?_data request')
    return
  }
  logger.error({ err: error, url: request.url }, 'unhandled error in a loader or action')
  // Imported on first use: the SDK is heavy, and is initialised by server.ts only when SENTRY_DSN is set.
  if (process.env.SENTRY_DSN) void import('@sentry/remix').then((Sentry) => Sentry.captureException(error))
}

// What server.ts (the HTTP shell) takes from the build: start-up, jobs, page caches, request rules.
export { serverHooks } from './main/server-hooks.server.ts'
