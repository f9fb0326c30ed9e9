import { type LoaderFunctionArgs } from '@remix-run/node'
import { getOnlyAction } from '#app/server/api.server.ts'
import { serveLatestApplePass } from '#app/services/wallet/apple-web-service.server.ts'
import { appleWebServiceAnswer } from './__apple-web-service.server.ts'

/**
 * Apple's pass web service: the latest version of a pass. Not apiLoader: that answers `Cache-Control: no-store`,
 * and this answer carries Last-Modified with `no-cache` (a device revalidates with If-Modified-Since).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const address = { passTypeId: params.passTypeId ?? '', serialNumber: params.serialNumber ?? '' }
  return appleWebServiceAnswer(await serveLatestApplePass(request, address))
}

export const action = getOnlyAction
