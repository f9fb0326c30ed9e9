import { apiError, apiSuccess } from '#app/server/api.server.ts'
import { APPLE_PASS_CONTENT_TYPE } from '#app/services/wallet/apple-pass-download.server.ts'
import { type AppleWebServiceOutcome } from '#app/services/wallet/apple-web-service.server.ts'

/** The refusals: each one status and one message, as the JSON calls answer them. */
const REFUSALS = {
  'unknown-pass-type': [404, 'This pass type is not served here'],
  'not-authorized': [401, 'The pass authentication token is missing or wrong'],
  'pass-not-found': [404, 'Pass not found'],
  'bad-device-id': [400, 'The device library identifier is not valid'],
  'bad-tag': [400, 'passesUpdatedSince must be a tag this service gave: whole seconds since 1970'],
  'wallet-off': [404, 'Apple Wallet is not available here'],
} as const satisfies Record<string, readonly [number, string]>

const isRefusal = (outcome: AppleWebServiceOutcome): outcome is { kind: keyof typeof REFUSALS } =>
  outcome.kind in REFUSALS

/**
 * The answers of Apple's pass web service ("Wallet Passes Web Service Reference"), for the wallet+/apple.* routes:
 * the protocol sets their statuses (201 new, 204 nothing changed, 304 the device has the pass, …) and headers, so they
 * are made here, beside the routes, and the service (app/services/wallet/apple-web-service.server.ts) says only what
 * came of the call. Refusals are the JSON calls' apiError (decision 055). Not a route: `__` files are ignored.
 */
export function appleWebServiceAnswer(outcome: AppleWebServiceOutcome): Response {
  if (isRefusal(outcome)) {
    const [status, message] = REFUSALS[outcome.kind]
    return apiError(status, message)
  }
  switch (outcome.kind) {
    case 'registered':
      return outcome.created
        ? apiSuccess('The device is registered for the pass', undefined, { status: 201 })
        : apiSuccess('The device was already registered for the pass')
    case 'unregistered':
      return apiSuccess('The device is unregistered from the pass')
    case 'no-updates':
      return new Response(null, { status: 204 })
    case 'updates':
      return Response.json({ serialNumbers: outcome.serialNumbers, lastUpdated: String(outcome.lastUpdated) })
    case 'not-modified':
      return new Response(null, {
        status: 304,
        headers: { 'Cache-Control': 'no-cache', 'Last-Modified': httpDate(outcome.lastModified) },
      })
    case 'pass':
      return new Response(new Uint8Array(outcome.pkpass), {
        headers: {
          'Content-Type': APPLE_PASS_CONTENT_TYPE,
          'Cache-Control': 'no-cache',
          'Last-Modified': httpDate(outcome.lastModified),
        },
      })
    case 'logged':
      return apiSuccess('Logged')
  }
}

/** Last-Modified at the one-second resolution the service compares If-Modified-Since at. */
const httpDate = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000).toUTCString()
