import { z } from 'zod'
import { parseBody } from '#app/server/api.server.ts'
import { getAppleWalletConfig } from '#app/server/apple-wallet-config.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { consumeRateLimit, RATE_LIMITS } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { getApplePassModifiedAt, getVoidedApplePass } from '#models/apple-pass.server.ts'
import {
  isApplePushToken,
  isDeviceLibraryId,
  listUpdatedApplePasses,
  registerAppleDevice,
  unregisterAppleDevice,
} from '#models/apple-registration.server.ts'
import { getLatestApplePass } from './apple-pass-download.server.ts'
import { isApplePassAuthorization } from './apple-pass-token.server.ts'

/**
 * Apple's pass web service (docs/product/wallets.md; Apple's "Wallet Passes Web Service Reference"), under
 * APP_URL/wallet/apple. Each call comes to an outcome; the routes answer it as the reference says
 * (app/routes/wallet+/__apple-web-service.server.ts). Rate limits and unreadable bodies are thrown (RateLimitedError,
 * parseBody's answers) for the routes' api.server.ts wrappers to answer 429 and 400/413.
 *
 * Order of the checks: the pass type (404: Apple Wallet off or another app's type), the rate limit (counted before
 * the token, so it also bounds guessing), the token (401), the body (400), then the pass (404).
 */
export type ApplePassAddress = { passTypeId: string; serialNumber: string }
export type AppleRegistrationAddress = ApplePassAddress & { deviceId: string }

/** A call's outcome, for its route to answer: a refusal (the first six), or what it did or found. */
export type AppleWebServiceOutcome =
  | { kind: 'unknown-pass-type' }
  | { kind: 'not-authorized' }
  | { kind: 'pass-not-found' }
  | { kind: 'bad-device-id' }
  | { kind: 'bad-tag' }
  | { kind: 'wallet-off' }
  | { kind: 'registered'; created: boolean }
  | { kind: 'unregistered' }
  | { kind: 'no-updates' }
  | { kind: 'updates'; serialNumbers: string[]; lastUpdated: number }
  | { kind: 'not-modified'; lastModified: Date }
  | { kind: 'pass'; pkpass: Buffer; lastModified: Date }
  | { kind: 'logged' }

/** The longest lines and the most lines of one log post that are written to the log. */
export const LOG_LINE_MAX_CHARS = 500
export const LOG_LINES_MAX = 50

const RegistrationSchema = z.object({
  pushToken: z
    .string({ error: 'pushToken is required' })
    .refine(isApplePushToken, 'pushToken must be the hexadecimal push token of the device'),
})
const LogSchema = z.object({ logs: z.array(z.string(), { error: 'logs must be a list of strings' }) })

function isServedPassType(passTypeId: string): boolean {
  const config = getAppleWalletConfig()
  return config !== null && passTypeId === config.passTypeId
}

/** `Authorization: ApplePass {token}` with the pass's token. No header makes no token (nor the wallet secret). */
async function isAuthorized(request: Request, serialNumber: string): Promise<boolean> {
  const header = request.headers.get('Authorization')
  if (!header?.startsWith('ApplePass ')) return false
  return isApplePassAuthorization(serialNumber, header)
}

/** POST …/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}/{serialNumber}: new, or known. */
export async function registerApplePassDevice(
  request: Request,
  address: AppleRegistrationAddress,
): Promise<AppleWebServiceOutcome> {
  const { deviceId, passTypeId, serialNumber } = address
  if (!isServedPassType(passTypeId)) return { kind: 'unknown-pass-type' }
  await consumeRateLimit(RATE_LIMITS.appleRegistrationsPerIp, clientAddress(request))
  if (!(await isAuthorized(request, serialNumber))) return { kind: 'not-authorized' }
  const { pushToken } = await parseBody(request, RegistrationSchema)
  if (!isDeviceLibraryId(deviceId)) return { kind: 'bad-device-id' }
  const registered = await registerAppleDevice({ deviceId, pushToken, passId: serialNumber })
  if (!registered) return { kind: 'pass-not-found' }
  return { kind: 'registered', created: registered === 'created' }
}

/** DELETE on the same address: done whether or not it was registered (a voided pass's devices unregister too). */
export async function unregisterApplePassDevice(
  request: Request,
  address: AppleRegistrationAddress,
): Promise<AppleWebServiceOutcome> {
  const { deviceId, passTypeId, serialNumber } = address
  if (!isServedPassType(passTypeId)) return { kind: 'unknown-pass-type' }
  await consumeRateLimit(RATE_LIMITS.appleRegistrationsPerIp, clientAddress(request))
  if (!(await isAuthorized(request, serialNumber))) return { kind: 'not-authorized' }
  await unregisterAppleDevice({ deviceId, passId: serialNumber })
  return { kind: 'unregistered' }
}

/**
 * GET …/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}[?passesUpdatedSince={tag}]: the
 * device's passes changed after the tag, with the tag to send next time (epoch seconds); no updates when none did (an
 * unknown device too). No token: Apple sends none here, and the answer names only the device's own serials.
 */
export async function listUpdatedApplePassSerials(
  request: Request,
  { deviceId, passTypeId }: { deviceId: string; passTypeId: string },
): Promise<AppleWebServiceOutcome> {
  if (!isServedPassType(passTypeId)) return { kind: 'unknown-pass-type' }
  const tag = new URL(request.url).searchParams.get('passesUpdatedSince')
  if (tag !== null && !/^\d{1,12}$/.test(tag)) return { kind: 'bad-tag' }
  const since = tag === null ? null : new Date(Number(tag) * 1000)
  const { serialNumbers, lastUpdated } = await listUpdatedApplePasses({ deviceId, since })
  if (serialNumbers.length === 0 || lastUpdated === null) return { kind: 'no-updates' }
  return { kind: 'updates', serialNumbers, lastUpdated }
}

/** Whether If-Modified-Since (one-second resolution) is not older than the pass: nothing new to send. */
function isNotModified(request: Request, modifiedAt: Date): boolean {
  const since = Date.parse(request.headers.get('If-Modified-Since') ?? '')
  return Number.isFinite(since) && Math.floor(modifiedAt.getTime() / 1000) <= Math.floor(since / 1000)
}

/**
 * GET …/passes/{passTypeIdentifier}/{serialNumber}: the current pass, or not modified when the device has it. The
 * time is read before anything is built, so a device that has the pass costs one query. A deleted card's pass is
 * served voided, as it was kept.
 */
export async function serveLatestApplePass(
  request: Request,
  address: ApplePassAddress,
): Promise<AppleWebServiceOutcome> {
  const { passTypeId, serialNumber } = address
  if (!isServedPassType(passTypeId)) return { kind: 'unknown-pass-type' }
  if (!(await isAuthorized(request, serialNumber))) return { kind: 'not-authorized' }
  const modified = await getApplePassModifiedAt(serialNumber)
  if (!modified) return { kind: 'pass-not-found' }
  if (isNotModified(request, modified.modifiedAt)) return { kind: 'not-modified', lastModified: modified.modifiedAt }
  const pass = modified.voided ? await getVoidedApplePass(serialNumber) : await getLatestApplePass(serialNumber)
  // Gone between the two reads (the card deleted just now): the device asks again after the push.
  if (!pass) return { kind: 'pass-not-found' }
  return { kind: 'pass', pkpass: pass.pkpass, lastModified: pass.modifiedAt }
}

/** POST …/log `{"logs": [...]}`: what Wallet on a device reports about this service, at warn with its address. */
export async function recordAppleDeviceLogs(request: Request): Promise<AppleWebServiceOutcome> {
  if (!getAppleWalletConfig()) return { kind: 'wallet-off' }
  const address = clientAddress(request)
  await consumeRateLimit(RATE_LIMITS.appleLogsPerIp, address)
  const { logs } = await parseBody(request, LogSchema)
  for (const line of logs.slice(0, LOG_LINES_MAX)) {
    logger.warn({ clientAddress: address, deviceLog: line.slice(0, LOG_LINE_MAX_CHARS) }, 'Apple Wallet device log')
  }
  return { kind: 'logged' }
}
