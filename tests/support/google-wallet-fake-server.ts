import crypto from 'node:crypto'
import { type IncomingMessage, type ServerResponse } from 'node:http'
import { makeGoogleServiceAccount } from './google-service-account.ts'
import { startGoogleWalletFake, type FakeFailure } from './google-wallet-fake.ts'

/**
 * The Google Wallet fake as its own process, for Playwright's webServer (the app runs as a separate process too):
 *   GOOGLE_WALLET_FAKE_PORT=<port> node --import tsx tests/support/google-wallet-fake-server.ts
 * It trusts the service account the app is given: GOOGLE_WALLET_ISSUER_ID and GOOGLE_WALLET_SERVICE_ACCOUNT (the key
 * file's JSON), the app's own settings, so both processes get them from one makeGoogleServiceAccount().env(origin)
 * in the runner (each process that calls makeGoogleServiceAccount() makes its own key). Without them it makes the
 * account itself, which only a client in this process could sign for. Beside Google's paths, on the same port:
 *   GET /healthz → ok                         GET /fake/violations, /fake/requests, /fake/objects (ids)
 *   GET /fake/classes/{id}, /fake/objects/{id} → the resource, or 404
 *   GET /fake/notifications/{objectId} → {times, throttled}
 *   POST /fake/fail-next {count, failure, method?, pathIncludes?}     DELETE /fake/objects/{id}
 *   POST /fake/token-lifetime {seconds}       POST /fake/reset
 * Once listening it prints "google wallet fake ready <origin>".
 */
const port = Number(process.env.GOOGLE_WALLET_FAKE_PORT)
if (!Number.isInteger(port)) throw new Error('GOOGLE_WALLET_FAKE_PORT must be a port number')
const account = accountFromEnv() ?? makeGoogleServiceAccount()

type FailNext = { count?: number; failure?: FakeFailure; method?: string; pathIncludes?: string }

const fake = await startGoogleWalletFake({
  issuerId: account.issuerId,
  clientEmail: account.clientEmail,
  publicKeyPem: account.publicKeyPem,
  port,
  extraRoutes(request, response, url) {
    const route = `${request.method} ${url.pathname}`
    if (route === 'GET /healthz') {
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok')
      return true
    }
    if (!url.pathname.startsWith('/fake/')) return false
    void readJson(request).then(
      (input) => control(route, decodeURIComponent(url.pathname), input, response),
      (error: unknown) => json(response, { error: String(error) }, 400),
    )
    return true
  },
})

function accountFromEnv() {
  const issuerId = process.env.GOOGLE_WALLET_ISSUER_ID
  const keyJson = process.env.GOOGLE_WALLET_SERVICE_ACCOUNT
  if (!issuerId || !keyJson) return undefined
  const key = JSON.parse(keyJson) as { client_email: string; private_key: string }
  const publicKeyPem = crypto.createPublicKey(key.private_key).export({ type: 'spki', format: 'pem' }).toString()
  return { issuerId, clientEmail: key.client_email, publicKeyPem }
}

function control(route: string, path: string, input: unknown, response: ServerResponse) {
  const found = (value: unknown) =>
    value === undefined ? json(response, { error: 'Not found' }, 404) : json(response, value)
  const id = (prefix: string) => path.slice(prefix.length)
  if (route === 'GET /fake/violations') return json(response, fake.violations())
  if (route === 'GET /fake/requests') return json(response, fake.requests())
  if (route === 'GET /fake/objects') return json(response, fake.objectIds())
  if (route.startsWith('GET /fake/classes/')) return found(fake.getClass(id('/fake/classes/')))
  if (route.startsWith('GET /fake/objects/')) return found(fake.getObject(id('/fake/objects/')))
  if (route.startsWith('GET /fake/notifications/')) {
    const objectId = id('/fake/notifications/')
    return json(response, { times: fake.notifications(objectId), throttled: fake.throttled(objectId) })
  }
  if (route.startsWith('DELETE /fake/objects/')) {
    fake.deleteObject(id('/fake/objects/'))
    return json(response, {})
  }
  if (route === 'POST /fake/fail-next') {
    const { count = 1, failure = 503, method, pathIncludes } = (input ?? {}) as FailNext
    fake.failNext(count, failure, (given, path) => (!method || given === method) && path.includes(pathIncludes ?? ''))
    return json(response, {})
  }
  if (route === 'POST /fake/token-lifetime') {
    fake.setTokenLifetime(Number((input as { seconds?: unknown } | undefined)?.seconds ?? 3600))
    return json(response, {})
  }
  if (route === 'POST /fake/reset') {
    fake.reset()
    return json(response, {})
  }
  json(response, { error: 'Not found' }, 404)
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let text = ''
  for await (const chunk of request as AsyncIterable<Buffer>) text += chunk.toString('utf8')
  return text ? JSON.parse(text) : undefined
}

function json(response: ServerResponse, value: unknown, status = 200) {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value))
}

console.log(`google wallet fake ready ${fake.origin}`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void fake.close().then(() => process.exit(0)))
}
