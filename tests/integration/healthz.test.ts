import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { forgetSequelizeForTests } from '#app/server/db.server.ts'
import { embeddedSocketPath } from '#app/server/embedded-db.server.ts'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, me } from '#tests/support/auth-api.ts'
import { startTcpProxy } from '#tests/support/tcp-proxy.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/*
 * /healthz tells a load balancer whether this process can reach its database: 200 while it can, 503 (quickly)
 * while it cannot, 200 again once it can, without restarting the app. The app reaches this file's database
 * through a TCP proxy the test owns, so the test can take the database away without touching it.
 */

const PROBE_TIMEOUT_MS = 2_000 // isDatabaseHealthy's own timeout
const QUICK_MS = PROBE_TIMEOUT_MS + 1_000

let proxy: Awaited<ReturnType<typeof startTcpProxy>>
let server: Awaited<ReturnType<typeof startTestServer>>

beforeAll(async () => {
  // integration-setup points the environment at this file's database; put the proxy in front of it.
  const direct = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL) : undefined
  proxy = await startTcpProxy(
    direct
      ? { host: direct.hostname, port: Number(direct.port || 5432) }
      : { path: embeddedSocketPath(process.env.DATA_DIR!) },
  )
  const viaProxy = new URL(direct?.toString() ?? 'postgres://postgres@localhost/postgres')
  viaProxy.hostname = proxy.host
  viaProxy.port = String(proxy.port)
  process.env.DATABASE_URL = viaProxy.toString()
  resetEnvForTests()
  await forgetSequelizeForTests()
  server = await startTestServer()
})

afterAll(async () => {
  await server?.close()
  await proxy?.close()
})

async function probe() {
  const started = Date.now()
  const response = await server.fetch('/healthz')
  return { status: response.status, body: (await response.json()) as unknown, ms: Date.now() - started }
}

/** Polls /healthz until it answers `status`; returns how long that took. */
async function waitForHealth(status: number, withinMs: number) {
  const started = Date.now()
  let last: Awaited<ReturnType<typeof probe>> | undefined
  while (Date.now() - started < withinMs) {
    last = await probe()
    if (last.status === status) return Date.now() - started
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`/healthz did not answer ${status} within ${withinMs} ms (last: ${JSON.stringify(last)})`)
}

describe('/healthz', () => {
  test('answers 200 while the database is up', async () => {
    const result = await probe()
    expect(result.status).toBe(200)
    expect(result.body).toEqual({ status: 'ok', database: 'up' })
    expect(proxy.openConnections()).toBeGreaterThan(0) // the app really goes through the proxy
  })

  test('answers 503 quickly while the database is down, and 200 again when it is back', async () => {
    await probe()
    proxy.cut()
    // More probes than the pool has connections: none may hang or wait for a connection.
    const down = await Promise.all(Array.from({ length: 12 }, () => probe()))
    for (const result of down) {
      expect(result.status).toBe(503)
      expect(result.body).toEqual({ status: 'unavailable', database: 'down' })
      expect(result.ms).toBeLessThan(QUICK_MS)
    }
    expect((await probe()).status).toBe(503)

    proxy.restore()
    expect(await waitForHealth(200, 5_000)).toBeLessThan(5_000)
  })

  test('a connection that silently stops answering does not make it hang, nor keep it down once the database is back', async () => {
    // Fill the pool with idle connections first: each of them goes dead with the network.
    const up = await Promise.all(Array.from({ length: 12 }, () => probe()))
    expect(up.map((result) => result.status)).toEqual(Array.from({ length: 12 }, () => 200))
    proxy.blackhole()
    // Two waves of more probes than the pool has connections: each new connection hangs as well.
    for (let wave = 0; wave < 2; wave++) {
      const down = await Promise.all(Array.from({ length: 12 }, () => probe()))
      for (const result of down) {
        expect(result.status).toBe(503)
        expect(result.ms).toBeLessThan(QUICK_MS)
      }
    }
    proxy.restore()
    // The connections that went dead stay dead: the pool must drop them (a connection attempt gives up after
    // 5 s) instead of waiting on them.
    await waitForHealth(200, 10_000)
  }, 30_000)

  test('static files are still served while the database is down', async () => {
    proxy.cut()
    try {
      const started = Date.now()
      const response = await server.fetch('/favicon.svg')
      expect(Date.now() - started).toBeLessThan(QUICK_MS)
      expect(response.status).toBe(200)
    } finally {
      proxy.restore()
      await waitForHealth(200, 5_000)
    }
  })

  test('pages and calls answer 503 with Retry-After while the database is down, then work again by themselves', async () => {
    const owner = await createOwner()
    const cookie = await logIn(server, owner.email)
    const requests: [string, () => Promise<Response>][] = [
      ['the account page', () => server.fetch('/account', { headers: { cookie } })],
      ['a JSON call', () => me(server, cookie)],
      [
        'a pass page (its cache asks the database first)',
        () => server.fetch('/p/00000000-0000-4000-8000-000000000000'),
      ],
      [
        'a form post',
        () =>
          server.fetch('/account/contact-us', {
            method: 'POST',
            headers: { cookie },
            body: new URLSearchParams({ message: 'Hello there, a question.' }),
          }),
      ],
    ]
    proxy.cut()
    try {
      for (const [name, request] of requests) {
        const started = Date.now()
        const response = await request()
        const body = await response.text()
        expect(response.status, name).toBe(503)
        expect(response.headers.get('retry-after'), name).toBe('5')
        expect(body.length, name).toBeGreaterThan(0)
        expect(Date.now() - started, name).toBeLessThan(QUICK_MS * 3)
      }
    } finally {
      proxy.restore()
    }
    await waitForHealth(200, 5_000)
    expect((await server.fetch('/account', { headers: { cookie } })).status).toBe(200)
    expect((await me(server, cookie)).status).toBe(200)
  }, 60_000)
})
