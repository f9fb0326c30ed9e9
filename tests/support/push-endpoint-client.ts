import { type Behaviour, type PushRequest, type PushSubscriptionJSON } from './push-endpoint.ts'

/**
 * Typed calls to the control API of a push endpoint running as its own process (tests/support/push-endpoint-server.ts),
 * e.g. `pushEndpointClient('http://127.0.0.1:4521')`.
 */
export function pushEndpointClient(controlUrl: string) {
  async function call<T>(method: 'GET' | 'POST', pathname: string, body?: unknown): Promise<T> {
    const response = await fetch(new URL(pathname, controlUrl), {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (!response.ok)
      throw new Error(`push endpoint ${method} ${pathname}: ${response.status} ${await response.text()}`)
    return (await response.json()) as T
  }
  const filter = (endpoints: string[]) =>
    endpoints.length ? `?${endpoints.map((endpoint) => `endpoint=${encodeURIComponent(endpoint)}`).join('&')}` : ''

  return {
    /** The push service's origin and host (the value for PUSH_ALLOWED_HOSTS). */
    health: () => call<{ origin: string; host: string }>('GET', '/healthz'),
    createSubscription: (behaviour?: Behaviour) => call<PushSubscriptionJSON>('POST', '/subscriptions', { behaviour }),
    setBehaviour: async (endpoint: string, behaviour: Behaviour) => {
      await call('POST', '/behaviour', { endpoint, behaviour })
    },
    /** 2xx deliveries, decrypted; only those to the given endpoints when some are given. */
    received: (endpoints: string[] = []) => call<PushRequest[]>('GET', `/received${filter(endpoints)}`),
    /** Every request, answered or not; only those to the given endpoints when some are given. */
    requests: (endpoints: string[] = []) => call<PushRequest[]>('GET', `/requests${filter(endpoints)}`),
    reset: async () => {
      await call('POST', '/reset')
    },
  }
}

export type PushEndpointClient = ReturnType<typeof pushEndpointClient>
