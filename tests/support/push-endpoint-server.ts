import http from 'node:http'
import { type AddressInfo } from 'node:net'
import { startPushEndpoint, type Behaviour, type PushRequest } from './push-endpoint.ts'

/**
 * The push endpoint as its own process, for Playwright's webServer, child-process tests and the benchmark:
 *   node --import tsx tests/support/push-endpoint-server.ts <push port> [control port]
 * HTTPS push service on the first port (127.0.0.1); a plain HTTP control API on the second (argv[3], else
 * E2E_PUSH_CONTROL_PORT, else push port + 1), used through tests/support/push-endpoint-client.ts:
 *   POST /subscriptions {behaviour?} → subscription JSON    POST /behaviour {endpoint, behaviour}
 *   GET /received[?endpoint=...] → 2xx deliveries            GET /requests[?endpoint=...] → every request
 *   POST /reset                                              GET /healthz → { origin, host }
 * PUSH_ENDPOINT_LATENCY_MS adds latency to every push request. Once listening it prints
 * "push endpoint ready <origin> control <control url>".
 */
const pushPort = Number(process.argv[2] ?? process.env.E2E_PUSH_PORT)
if (!Number.isInteger(pushPort)) throw new Error('usage: push-endpoint-server.ts <push port> [control port]')
const controlPort = Number(process.argv[3] ?? process.env.E2E_PUSH_CONTROL_PORT ?? pushPort + 1)
const endpoint = await startPushEndpoint({
  port: pushPort,
  latencyMs: Number(process.env.PUSH_ENDPOINT_LATENCY_MS ?? 0),
})

const control = http.createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const json = (value: unknown, status = 200) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value))
    // Filtering here keeps a Playwright worker to its own subscriptions (workers share this process).
    const only = (requests: PushRequest[]) => {
      const endpoints = url.searchParams.getAll('endpoint')
      return endpoints.length ? requests.filter((request) => endpoints.includes(request.endpoint)) : requests
    }
    try {
      const input = (body ? JSON.parse(body) : {}) as { behaviour?: Behaviour; endpoint?: string }
      const route = `${req.method} ${url.pathname}`
      if (route === 'GET /healthz') return json({ origin: endpoint.origin, host: endpoint.host })
      if (route === 'POST /subscriptions') return json(endpoint.createSubscription(input.behaviour), 201)
      if (route === 'POST /behaviour') {
        endpoint.setBehaviour(input.endpoint ?? '', input.behaviour ?? 'ok')
        return json({})
      }
      if (route === 'GET /received') return json(only(endpoint.received()))
      if (route === 'GET /requests') return json(only(endpoint.requests()))
      if (route === 'POST /reset') {
        endpoint.reset()
        return json({})
      }
      json({ error: 'Not found' }, 404)
    } catch (error) {
      json({ error: (error as Error).message }, 400)
    }
  })
})
await new Promise<void>((resolve) => control.listen(controlPort, '127.0.0.1', resolve))
// With port 0 for either, the line tells which ports were chosen.
console.log(
  `push endpoint ready ${endpoint.origin} control http://127.0.0.1:${(control.address() as AddressInfo).port}`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    control.close()
    void endpoint.close().then(() => process.exit(0))
  })
}
