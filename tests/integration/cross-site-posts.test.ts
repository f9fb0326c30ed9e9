import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { getEnv } from '#app/server/env.server.ts'
import { createUser, logIn, me, sql } from '#tests/support/auth-api.ts'
import { rawRequest } from '#tests/support/raw-http.ts'
import { unreadableReason } from '#tests/support/readable-answer.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * Issue 14, item 4: every POST, PUT, PATCH and DELETE from a browser must come from our own pages (`Origin`, else
 * `Sec-Fetch-Site`), Remix's data paths included; cross-site is 403 with a message (docs/product/hardening.md). Before:
 * `POST /logout?_data=routes/logout` from another site signed the visitor out, `POST /login?_data=…` signed a
 * victim's browser into the attacker's account, and an ordinary cross-site form answered 500 with an error log.
 */
let server: Awaited<ReturnType<typeof startTestServer>>
let proxied: Awaited<ReturnType<typeof startTestServer>>

beforeAll(async () => {
  server = await startTestServer()
  proxied = await startTestServer({ env: { TRUST_PROXY: 1 } })
})
afterAll(async () => {
  await server.close()
  await proxied.close()
})

const EVIL = 'https://evil.example'
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' }

async function loginForm(user: { email: string; password: string }) {
  return new URLSearchParams({ email: user.email, password: user.password }).toString()
}

async function expectCrossSiteRefusal(response: Response, address: string) {
  expect(response.status).toBe(403)
  expect(response.headers.getSetCookie()).toEqual([])
  const text = await response.text()
  expect(unreadableReason(address, response, text)).toBeNull()
  expect(text).toContain('Cross-site requests are not allowed')
  return text
}

describe('cross-site posts are refused with 403 and a message', () => {
  test('POST /logout?_data=routes/logout from another site leaves the session signed in', async () => {
    const user = await createUser()
    const cookie = await logIn(server, user.email)
    const response = await server.fetch('/logout?_data=routes/logout', {
      method: 'POST',
      headers: { Cookie: cookie, Origin: EVIL },
    })
    await expectCrossSiteRefusal(response, '/logout')
    // A Remix data request: the page's error boundary gets the message (not a network failure).
    expect(response.headers.get('X-Remix-Catch')).toBe('yes')
    expect((await me(server, cookie)).status).toBe(200)
  })

  test('POST /login?_data=… from another site sets no session cookie (login CSRF)', async () => {
    const attacker = await createUser()
    const response = await server.fetch('/login?_data=routes%2F_auth%2B%2Flogin', {
      method: 'POST',
      headers: { ...FORM, Origin: EVIL },
      body: await loginForm(attacker),
    })
    await expectCrossSiteRefusal(response, '/login')
    const [sessions] = await sql<{ count: number }>('select count(*)::int as count from sessions where user_id = :id', {
      id: attacker.id,
    })
    expect(sessions!.count).toBe(0)
  })

  test('an ordinary cross-site form (no JavaScript) gets a page that says why, not a 500', async () => {
    const user = await createUser()
    const response = await server.fetch('/login', {
      method: 'POST',
      headers: { ...FORM, Origin: EVIL },
      body: await loginForm(user),
    })
    const page = await expectCrossSiteRefusal(response, '/login')
    expect(response.headers.get('Content-Type')).toMatch(/^text\/html/)
    expect(page).toContain('<h1>This request came from another site</h1>')
    expect(page).toContain('Stampwise accepts forms only from its own pages, so nothing was changed.')
  })

  test.for([
    ['Sec-Fetch-Site: cross-site without Origin', { 'Sec-Fetch-Site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site (another origin of the site) without Origin', { 'Sec-Fetch-Site': 'same-site' }],
    ['Origin: null (a sandboxed frame, a data: page)', { Origin: 'null' }],
    ['an Origin that is no address', { Origin: 'not a url' }],
    ['our host on another scheme', { Origin: 'https://127.0.0.1' }],
  ] as const)('%s', async ([, headers]) => {
    const user = await createUser()
    await expectCrossSiteRefusal(
      await server.fetch('/login', { method: 'POST', headers: { ...FORM, ...headers }, body: await loginForm(user) }),
      '/login',
    )
  })

  test.for(['PUT', 'PATCH', 'DELETE'])(
    '%s from another site, on a JSON call, gets the JSON calls’ shape',
    async (method) => {
      const response = await server.fetch('/api/auth/logout', {
        method,
        headers: { Origin: EVIL, 'Content-Type': 'application/json' },
        body: '{}',
      })
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual({
        status: 'error',
        message: 'Cross-site requests are not allowed',
        msg: 'Cross-site requests are not allowed',
        errors: {},
      })
    },
  )

  test('without TRUST_PROXY, X-Forwarded-Host is the client’s own claim and cannot make a foreign Origin ours', async () => {
    const user = await createUser()
    const forwarded = { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' }
    await expectCrossSiteRefusal(
      await server.fetch('/login', {
        method: 'POST',
        headers: { ...FORM, ...forwarded, Origin: EVIL },
        body: await loginForm(user),
      }),
      '/login',
    )
  })
})

describe('our own pages and non-browsers still post', () => {
  test.for([
    ['no Origin and no Sec-Fetch-Site (curl, a server, these tests)', () => ({})],
    ['Origin: the address the request was sent to', () => ({ Origin: server.baseUrl })],
    ['Origin: APP_URL', () => ({ Origin: new URL(getEnv().APP_URL).origin })],
    ['Sec-Fetch-Site: same-origin without Origin', () => ({ 'Sec-Fetch-Site': 'same-origin' })],
  ] as const)('%s: login signs in', async ([, headers]) => {
    const user = await createUser()
    const response = await server.fetch('/login', {
      method: 'POST',
      headers: { ...FORM, ...headers(), 'Sec-Fetch-Mode': 'navigate' },
      body: await loginForm(user),
    })
    expect(response.status).toBe(302)
    expect(response.headers.getSetCookie().join()).toContain('__session=')
  })

  test('a same-origin data request logs out', async () => {
    const user = await createUser()
    const cookie = await logIn(server, user.email)
    const response = await server.fetch('/logout?_data=routes/logout', {
      method: 'POST',
      headers: { Cookie: cookie, Origin: server.baseUrl },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('X-Remix-Redirect')).toBe('/login')
    expect((await me(server, cookie)).status).toBe(401)
  })

  test('behind TRUST_PROXY, the forwarded scheme and host are our own origin', async () => {
    const user = await createUser()
    const response = await proxied.fetch('/login', {
      method: 'POST',
      headers: {
        ...FORM,
        'X-Forwarded-Host': 'stampwise.example',
        'X-Forwarded-Proto': 'https',
        Origin: 'https://stampwise.example',
      },
      body: await loginForm(user),
    })
    expect(response.status).toBe(302)
  })

  test("/auth_apple takes Apple's cross-site form_post (its state is checked instead)", async () => {
    const response = await server.fetch('/auth_apple', {
      method: 'POST',
      headers: { ...FORM, Origin: 'https://appleid.apple.com' },
      body: new URLSearchParams({ code: 'x', state: 'unknown' }).toString(),
    })
    expect(response.status).not.toBe(403)
    expect(response.status).toBeLessThan(500)
  })

  test("Apple's pass web service takes calls from anywhere (Wallet on a device, with the pass's token)", async () => {
    for (const [method, path] of [
      ['POST', '/wallet/apple/v1/log'],
      ['POST', '/wallet/apple/v1/devices/device1/registrations/pass.example/serial'],
      ['DELETE', '/wallet/apple/v1/devices/device1/registrations/pass.example/serial'],
    ] as const) {
      const response = await server.fetch(path, {
        method,
        headers: { 'Content-Type': 'application/json', Origin: EVIL },
        body: JSON.stringify({ logs: ['x'] }),
      })
      expect(response.status, `${method} ${path}`).not.toBe(403)
      expect(response.status, `${method} ${path}`).toBeLessThan(500)
    }
  })

  test('the exception is the route itself: a path that only starts like it is checked', async () => {
    const user = await createUser()
    const cookie = await logIn(server, user.email)
    // Sent as is (fetch would resolve the dot segments first); Remix resolves them: this address is /logout.
    for (const rawPath of [
      '/auth_apple/../logout?_data=routes/logout',
      '/auth_apple/%2e%2e/logout?_data=routes/logout',
      '/wallet/apple/v1/../../../logout?_data=routes/logout',
      '/wallet/apple/%2e%2e/%2e%2e/logout?_data=routes/logout',
    ]) {
      const response = await rawRequest(new URL(server.baseUrl), {
        method: 'POST',
        rawPath,
        headers: { Cookie: cookie, Origin: EVIL },
      })
      expect(response.status, rawPath).toBe(403)
    }
    expect((await me(server, cookie)).status).toBe(200)
  })
})
