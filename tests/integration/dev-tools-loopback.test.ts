import os from 'node:os'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DEMO_EMAIL, DEMO_PASSWORD } from '#app/services/accounts/demo-account.server.ts'
import { DEMO_ACCOUNT_LOCAL_ONLY } from '#app/services/auth/auth.server.ts'
import { createUser, postJson } from '#tests/support/auth-api.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * Issue 14, item 7: `npm start` served /dev/mailbox (every reset link) and the demo account (its password is in the
 * README) to any address that could reach it. Outside production both now answer loopback clients only.
 *
 * Two ways to be a client that is not this computer: a real connection to this machine's own non-loopback address
 * (the server sees that address on the socket; skipped where the machine has none), and TRUST_PROXY=1 with a
 * public address in X-Forwarded-For (how the app sees visitors behind a proxy).
 */
type Server = Awaited<ReturnType<typeof startTestServer>>
let local: Server
let proxied: Server
let lan: Server | undefined

const lanAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address

beforeAll(async () => {
  local = await startTestServer()
  proxied = await startTestServer({ env: { TRUST_PROXY: 1 } })
  if (lanAddress) lan = await startTestServer({ host: lanAddress })
  await createUser({ email: DEMO_EMAIL, password: DEMO_PASSWORD })
})
afterAll(async () => {
  await local.close()
  await proxied.close()
  await lan?.close()
})

const PUBLIC = { 'X-Forwarded-For': '203.0.113.9' }
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' }
const demoForm = () => new URLSearchParams({ email: DEMO_EMAIL, password: DEMO_PASSWORD }).toString()

describe('/dev/mailbox', () => {
  test('answers a loopback client (127.0.0.1, and ::ffff:127.0.0.1 through a proxy)', async () => {
    expect((await local.fetch('/dev/mailbox')).status).toBe(200)
    expect((await proxied.fetch('/dev/mailbox', { headers: { 'X-Forwarded-For': '::ffff:127.0.0.1' } })).status).toBe(
      200,
    )
  })

  test('is a 404 to a client on a public address behind the proxy', async () => {
    const response = await proxied.fetch('/dev/mailbox', { headers: PUBLIC })
    expect(response.status).toBe(404)
    expect(await response.text()).not.toContain('Mailbox')
  })

  test.skipIf(!lanAddress)("is a 404 to a client connecting to this machine's network address", async () => {
    const response = await lan!.fetch('/dev/mailbox')
    expect(response.status).toBe(404)
  })
})

describe('the demo account', () => {
  test('signs in from this computer', async () => {
    const response = await local.fetch('/login', { method: 'POST', headers: FORM, body: demoForm() })
    expect(response.status).toBe(302)
    expect(response.headers.getSetCookie().join()).toContain('__session=')
  })

  test('is refused, with the reason, from a public address (page and JSON call)', async () => {
    const page = await proxied.fetch('/login', { method: 'POST', headers: { ...FORM, ...PUBLIC }, body: demoForm() })
    expect(page.status).toBe(401)
    expect(page.headers.getSetCookie()).toEqual([])
    expect(await page.text()).toContain(DEMO_ACCOUNT_LOCAL_ONLY)

    const call = await postJson(proxied, '/api/auth/login', { email: DEMO_EMAIL, password: DEMO_PASSWORD }, PUBLIC)
    expect(call.status).toBe(401)
    expect(call.headers.getSetCookie()).toEqual([])
    expect(await call.json()).toMatchObject({ status: 'error', message: DEMO_ACCOUNT_LOCAL_ONLY })
  })

  test.skipIf(!lanAddress)("is refused to a client connecting to this machine's network address", async () => {
    const response = await lan!.fetch('/login', { method: 'POST', headers: FORM, body: demoForm() })
    expect(response.status).toBe(401)
    expect(response.headers.getSetCookie()).toEqual([])
  })

  test('any other account still signs in from a public address', async () => {
    const user = await createUser()
    const response = await postJson(proxied, '/api/auth/login', { email: user.email, password: user.password }, PUBLIC)
    expect(response.status).toBe(200)
  })
})
