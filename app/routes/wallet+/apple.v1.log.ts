import { apiAction, postOnlyLoader } from '#app/server/api.server.ts'
import { recordAppleDeviceLogs } from '#app/services/wallet/apple-web-service.server.ts'
import { appleWebServiceAnswer } from './__apple-web-service.server.ts'

/** Apple's pass web service: Wallet on a device reports problems with this service. */
export const loader = postOnlyLoader

export const action = apiAction(async ({ request }) => appleWebServiceAnswer(await recordAppleDeviceLogs(request)))
