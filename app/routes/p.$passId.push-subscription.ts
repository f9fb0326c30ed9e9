import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { apiError, apiLoader, apiMethodsAction, apiSuccess, parseBody } from '#app/server/api.server.ts'
import { getEnv } from '#app/server/env.server.ts'
import { getVapidKeys } from '#app/services/push/vapid.server.ts'
import { pushSubscriptionSchema, pushUnsubscribeSchema } from '#app/utils/push-subscription.ts'
import { getPassView } from '#models/pass.server.ts'
import { deletePassSubscription, hasPassSubscription, savePassSubscription } from '#models/push-subscription.server.ts'

/**
 * The pass page's push subscription (docs/product/push-messages.md): POST the browser's `PushSubscription.toJSON()`
 * to save it, DELETE with `{"endpoint"}` to remove it; GET `?endpoint=` tells whether it is saved, with the VAPID
 * public key to subscribe with. The pass id is the holder's only credential, as for the pass page itself.
 */
const passNotFound = () => apiError(404, 'Pass not found')

export const loader = apiLoader(async ({ request, params }: LoaderFunctionArgs) => {
  if (!(await getPassView(params.passId))) return passNotFound()
  const endpoint = new URL(request.url).searchParams.get('endpoint')
  const { publicKey } = await getVapidKeys()
  const subscribed = endpoint ? await hasPassSubscription(params.passId!, endpoint) : false
  return apiSuccess(subscribed ? 'Notifications are on' : 'Notifications are off', { subscribed, publicKey })
})

export const action = apiMethodsAction({
  POST: async ({ request, params }: ActionFunctionArgs) => {
    const subscription = await parseBody(request, pushSubscriptionSchema(getEnv().pushAllowedHosts))
    const saved = await savePassSubscription(params.passId ?? '', subscription)
    if (!saved) return passNotFound()
    return apiSuccess('Notifications are on', { subscribed: true }, { status: saved.created ? 201 : 200 })
  },
  DELETE: async ({ request, params }: ActionFunctionArgs) => {
    const { endpoint } = await parseBody(request, pushUnsubscribeSchema)
    if (!(await getPassView(params.passId))) return passNotFound()
    await deletePassSubscription(params.passId!, endpoint)
    return apiSuccess('Notifications are off', { subscribed: false })
  },
})
