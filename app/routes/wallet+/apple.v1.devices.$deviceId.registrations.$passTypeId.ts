import { apiLoader, getOnlyAction } from '#app/server/api.server.ts'
import { listUpdatedApplePassSerials } from '#app/services/wallet/apple-web-service.server.ts'
import { appleWebServiceAnswer } from './__apple-web-service.server.ts'

/** Apple's pass web service: the serial numbers of the device's passes changed since `?passesUpdatedSince=`. */
export const loader = apiLoader(async ({ request, params }) =>
  appleWebServiceAnswer(
    await listUpdatedApplePassSerials(request, {
      deviceId: params.deviceId ?? '',
      passTypeId: params.passTypeId ?? '',
    }),
  ),
)

export const action = getOnlyAction
