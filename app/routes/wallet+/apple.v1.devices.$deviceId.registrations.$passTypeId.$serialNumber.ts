import { type ActionFunctionArgs } from '@remix-run/node'
import { apiLoader, apiMethodsAction, methodNotAllowed } from '#app/server/api.server.ts'
import {
  registerApplePassDevice,
  unregisterApplePassDevice,
  type AppleRegistrationAddress,
} from '#app/services/wallet/apple-web-service.server.ts'
import { appleWebServiceAnswer } from './__apple-web-service.server.ts'

/** Apple's pass web service: a device registers (POST) or unregisters (DELETE) for a pass's updates. */
const addressOf = ({ params }: ActionFunctionArgs): AppleRegistrationAddress => ({
  deviceId: params.deviceId ?? '',
  passTypeId: params.passTypeId ?? '',
  serialNumber: params.serialNumber ?? '',
})

export const loader = apiLoader(async () => methodNotAllowed(['POST', 'DELETE']))

export const action = apiMethodsAction({
  POST: async (args) => appleWebServiceAnswer(await registerApplePassDevice(args.request, addressOf(args))),
  DELETE: async (args) => appleWebServiceAnswer(await unregisterApplePassDevice(args.request, addressOf(args))),
})
