import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createUser, expectAnswer, postJson, sql, uniqueEmail } from '#tests/support/auth-api.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * Rate limits count first and check after, in one statement (docs/product/hardening.md, "Rate limits"): parallel
 * attempts cannot pass a limit. IPv6 clients are counted per /64. Run on the embedded database and on the PostgreSQL
 * server.
 */
let server: Awaited<ReturnType<typeof startTestServer>>
// Behind one trusted proxy, so a test can choose the client address with X-Forwarded-For.
let proxied: Awaited<ReturnType<typeof startTestServer>>
beforeAll(async () => {
  server = await startTestServer()
  proxied = await startTestServer({ env: { TRUST_PROXY: 1 } })
})
afterAll(async () => {
  await server.close()
  await proxied.close()
})
beforeEach(async () => {
  await sql('delete from rate_limit_counters')
})

const PER_ACCOUNT_LIMIT = 5
const wrongPasswords = (count: number) => Array.from({ length: count }, (_, index) => `Wrong.pass${index}`)

describe('the per-account login limit under parallel attempts', () => {
  test('20 parallel wrong passwords to /api/auth/login: at most 5 are checked, the rest answer 429', async () => {
    const user = await createUser()
    const responses = await Promise.all(
      wrongPasswords(20).map((password) => postJson(server, '/api/auth/login', { email: user.email, password })),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 401)).toHaveLength(PER_ACCOUNT_LIMIT)
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - PER_ACCOUNT_LIMIT)
    for (const response of responses.filter((r) => r.status === 429)) {
      await expectAnswer(response, 429, {
        status: 'error',
        message: 'Too many attempts. Please try again in 15 minutes.',
      })
    }
    // The right password waits too, until the window ends.
    expect((await postJson(server, '/api/auth/login', { email: user.email, password: user.password })).status).toBe(429)
  })

  test('20 parallel wrong passwords through the login form: at most 5 are checked, the rest answer 429', async () => {
    const user = await createUser()
    const responses = await Promise.all(
      wrongPasswords(20).map((password) =>
        server.fetch('/login', {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ email: user.email, password }),
        }),
      ),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 401)).toHaveLength(PER_ACCOUNT_LIMIT)
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - PER_ACCOUNT_LIMIT)
    const blocked = responses.find((response) => response.status === 429)!
    expect(Number(blocked.headers.get('Retry-After'))).toBeGreaterThan(14 * 60)
    expect(await blocked.text()).toContain('Too many attempts. Please try again in 15 minutes.')
  })

  test('the right password among parallel wrong ones still signs in while under the limit, and clears the count', async () => {
    const user = await createUser()
    const [right, ...wrong] = await Promise.all([
      postJson(server, '/api/auth/login', { email: user.email, password: user.password }),
      ...wrongPasswords(3).map((password) => postJson(server, '/api/auth/login', { email: user.email, password })),
    ])
    expect(right!.status).toBe(200)
    expect(wrong.map((response) => response.status)).toEqual([401, 401, 401])
  })
})

describe('per-address limits count IPv6 clients per /64', () => {
  const forgot = (forwardedFor: string) =>
    postJson(proxied, '/api/auth/forgot-password', { email: uniqueEmail('reset') }, { 'X-Forwarded-For': forwardedFor })

  test('addresses of one /64 share the count; another /64 and IPv4 clients have their own', async () => {
    const FORGOT_PER_ADDRESS = 20
    for (let host = 1; host <= FORGOT_PER_ADDRESS; host++) {
      // A new interface identifier for every request, as a client rotating its privacy address would.
      const response = await forgot(`2001:db8:aa:bb:${host.toString(16)}::${((host * 7919) % 0xffff).toString(16)}`)
      expect(response.status, `request ${host}`).toBe(200)
    }
    await expectAnswer(await forgot('2001:db8:aa:bb:ffff:ffff:ffff:fffe'), 429, { status: 'error' })
    await expectAnswer(await forgot('2001:db8:aa:bc::1'), 200, { status: 'success' })
    await expectAnswer(await forgot('203.0.113.9'), 200, { status: 'success' })

    const keys = await sql<{ key: string; points: number }>(
      `select key, points from rate_limit_counters where key like 'forgot-ip:%' order by key`,
    )
    expect(keys).toEqual([
      { key: 'forgot-ip:2001:db8:aa:bb::/64', points: FORGOT_PER_ADDRESS + 1 },
      { key: 'forgot-ip:2001:db8:aa:bc::/64', points: 1 },
      { key: 'forgot-ip:203.0.113.9', points: 1 },
    ])
  })
})
