import { beforeEach, describe, expect, test } from 'vitest'
import { getEnv } from '#app/server/env.server.ts'
import {
  createUser,
  expectAnswer,
  logIn,
  me,
  postJson,
  sessionCookie,
  sql,
  STRONG_PASSWORD,
  uniqueEmail,
} from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

const server = useTestServer()
// Every request here comes from 127.0.0.1: each test starts with fresh per-IP counts.
beforeEach(async () => {
  await sql('delete from rate_limit_counters')
})

const INVALID = 'Invalid email or password'
const UNCONFIRMED = 'Please confirm your email first. We can send you a new confirmation link.'

describe('GET /api/auth/me', () => {
  test('answers 401 to a guest', async () => {
    await expectAnswer(await me(server), 401, { status: 'error', message: 'Please sign in' })
  })

  test('describes the signed-in user with their card count and logo address', async () => {
    const user = await createUser()
    const cookie = await logIn(server, user.email)
    const first = await expectAnswer(await me(server, cookie), 200, { status: 'success' })
    expect(first.user).toEqual({
      id: user.id,
      email: user.email,
      role: 'owner',
      total_cards: 0,
      email_confirmed: true,
      user_logo: null,
    })

    await sql(`insert into cards (user_id, slug) values (:id, :slug)`, {
      id: user.id,
      slug: `card-${user.id.slice(0, 8)}`,
    })
    const logoAt = new Date('2026-01-02T03:04:05.678Z')
    await sql(
      `update users set logo = 'x'::bytea, logo_content_type = 'image/png', logo_updated_at = :at where id = :id`,
      {
        id: user.id,
        at: logoAt,
      },
    )
    const second = await expectAnswer(await me(server, cookie), 200, { status: 'success' })
    expect(second.user).toMatchObject({
      total_cards: 1,
      user_logo: `/images/users/${user.id}/logo?v=${logoAt.getTime()}`,
    })
  })

  test('counts only the caller’s cards', async () => {
    const other = await createUser()
    await sql(`insert into cards (user_id, slug) values (:id, :slug)`, {
      id: other.id,
      slug: `other-${other.id.slice(0, 8)}`,
    })
    const user = await createUser()
    const body = await expectAnswer(await me(server, await logIn(server, user.email)), 200, { status: 'success' })
    expect(body.user).toMatchObject({ id: user.id, total_cards: 0 })
  })

  test('answers 401 to a forged cookie', async () => {
    await expectAnswer(await me(server, '__session=forged-value-that-is-not-signed'), 401, { status: 'error' })
  })

  test('refuses other methods with 405 and an Allow header', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const response = await server.fetch('/api/auth/me', { method })
      expect(response.headers.get('Allow')).toBe('GET, HEAD')
      await expectAnswer(response, 405, { status: 'error', message: 'Method not allowed. Use GET or HEAD.' })
    }
  })
})

describe('POST /api/auth/login', () => {
  test('signs in: an HttpOnly, SameSite=Lax cookie and total_cards to choose /main or /account', async () => {
    const user = await createUser()
    const response = await postJson(server, '/api/auth/login', { email: user.email, password: user.password })
    const cookieLine = response.headers.getSetCookie().find((line) => line.startsWith('__session='))
    expect(cookieLine).toMatch(/HttpOnly/i)
    expect(cookieLine).toMatch(/SameSite=Lax/i)
    expect(cookieLine).toMatch(/Path=\//)
    const body = await expectAnswer(response, 200, { status: 'success', message: 'You are signed in' })
    expect(body.total_cards).toBe(0)
    expect(body).not.toHaveProperty('token')
    const [sessions] = await sql<{ count: number }>('select count(*)::int as count from sessions where user_id = :id', {
      id: user.id,
    })
    expect(sessions!.count).toBe(1)
  })

  test('reports the cards of an owner who has some', async () => {
    const user = await createUser()
    await sql(`insert into cards (user_id, slug) values (:id, :a), (:id, :b)`, {
      id: user.id,
      a: `a-${user.id.slice(0, 8)}`,
      b: `b-${user.id.slice(0, 8)}`,
    })
    const body = await expectAnswer(
      await postJson(server, '/api/auth/login', { email: user.email, password: user.password }),
      200,
      {
        status: 'success',
      },
    )
    expect(body.total_cards).toBe(2)
  })

  test('accepts the address in any case and with spaces around it', async () => {
    const user = await createUser()
    const response = await postJson(server, '/api/auth/login', {
      email: `  ${user.email.toUpperCase()} `,
      password: user.password,
    })
    await expectAnswer(response, 200, { status: 'success' })
  })

  test('accepts a form-encoded body', async () => {
    const user = await createUser()
    const response = await server.fetch('/api/auth/login', {
      method: 'POST',
      body: new URLSearchParams({ email: user.email, password: user.password }),
    })
    await expectAnswer(response, 200, { status: 'success' })
    expect(sessionCookie(response)).toMatch(/^__session=/)
  })

  test('answers a wrong password and an unknown address alike: 401, no cookie', async () => {
    const user = await createUser()
    const wrong = await postJson(server, '/api/auth/login', { email: user.email, password: 'Wrong.pass1' })
    const unknown = await postJson(server, '/api/auth/login', { email: uniqueEmail('nobody'), password: 'Wrong.pass1' })
    for (const response of [wrong, unknown]) {
      expect(response.headers.getSetCookie()).toEqual([])
      await expectAnswer(response, 401, { status: 'error', message: INVALID, errors: { password: [INVALID] } })
    }
  })

  test('an unconfirmed account: 403 offering the resend, only after the right password', async () => {
    const user = await createUser({ confirmed: false })
    const right = await postJson(server, '/api/auth/login', { email: user.email, password: user.password })
    expect(right.headers.getSetCookie()).toEqual([])
    const body = await expectAnswer(right, 403, {
      status: 'error',
      message: UNCONFIRMED,
      errors: { email: [UNCONFIRMED] },
    })
    expect(body.verify_email_url).toBe(`/verify-email?email=${encodeURIComponent(user.email)}`)

    const wrong = await postJson(server, '/api/auth/login', { email: user.email, password: 'Wrong.pass1' })
    await expectAnswer(wrong, 401, { status: 'error', message: INVALID, errors: { password: [INVALID] } })
  })

  test('a disabled account cannot sign in', async () => {
    const user = await createUser()
    await sql('update users set disabled_at = now() where id = :id', { id: user.id })
    await expectAnswer(await postJson(server, '/api/auth/login', { email: user.email, password: user.password }), 401, {
      status: 'error',
      errors: { password: [INVALID] },
    })
  })

  test('invalid input: 400 with the login form’s messages per field', async () => {
    const response = await postJson(server, '/api/auth/login', { email: 'not-an-email', password: '12345' })
    await expectAnswer(response, 400, {
      status: 'error',
      message: 'Invalid email format',
      errors: { email: ['Invalid email format'], password: ['Password must be 6 or more characters'] },
    })
  })

  test('missing fields and wrong types: 400 with field errors', async () => {
    const expected = { email: ['Invalid email format'], password: ['Password must be 6 or more characters'] }
    await expectAnswer(await postJson(server, '/api/auth/login', {}), 400, { status: 'error', errors: expected })
    await expectAnswer(await postJson(server, '/api/auth/login', { email: 42, password: true }), 400, {
      status: 'error',
      errors: expected,
    })
    await expectAnswer(await postJson(server, '/api/auth/login', { email: ['a@b.co'], password: { x: 1 } }), 400, {
      status: 'error',
      errors: expected,
    })
    await expectAnswer(await server.fetch('/api/auth/login', { method: 'POST' }), 400, {
      status: 'error',
      errors: expected,
    })
  })

  test('a body that is not a JSON object: 400', async () => {
    await expectAnswer(await postJson(server, '/api/auth/login', '{"email": "a@b.co",'), 400, {
      status: 'error',
      message: 'The request body is not valid JSON',
    })
    for (const body of ['[]', '["a@b.co", "Stamp.card1"]', 'null', '42', '"text"']) {
      await expectAnswer(await postJson(server, '/api/auth/login', body), 400, {
        status: 'error',
        message: 'The request body must be a JSON object',
      })
    }
  })

  test('a body over 64 kB: 413', async () => {
    const response = await postJson(server, '/api/auth/login', { email: 'a@b.co', password: 'x'.repeat(70_000) })
    await expectAnswer(response, 413, { status: 'error', message: 'The request body is too large' })
  })

  test('other methods: 405 with Allow: POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await server.fetch('/api/auth/login', { method })
      expect(response.headers.get('Allow')).toBe('POST')
      await expectAnswer(response, 405, { status: 'error', message: 'Method not allowed. Use POST.' })
    }
  })

  test('5 failed logins for one address: the 6th answers 429 even with the right password', async () => {
    const user = await createUser()
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await postJson(server, '/api/auth/login', {
        email: user.email,
        password: `Wrong.pass${attempt}`,
      })
      await expectAnswer(response, 401, { status: 'error', errors: { password: [INVALID] } })
    }
    const blocked = await postJson(server, '/api/auth/login', { email: user.email, password: user.password })
    expect(Number(blocked.headers.get('Retry-After'))).toBeGreaterThan(14 * 60)
    expect(Number(blocked.headers.get('Retry-After'))).toBeLessThanOrEqual(15 * 60)
    const body = await expectAnswer(blocked, 429, { status: 'error' })
    expect(body.message).toBe('Too many attempts. Please try again in 15 minutes.')
    expect(blocked.headers.getSetCookie()).toEqual([])

    // The limit is per address: another owner on the same network still signs in.
    const other = await createUser()
    await expectAnswer(
      await postJson(server, '/api/auth/login', { email: other.email, password: other.password }),
      200,
      {
        status: 'success',
      },
    )
  })

  test('a successful login clears the failures counted for the address', async () => {
    const user = await createUser()
    for (let attempt = 1; attempt <= 4; attempt++) {
      await postJson(server, '/api/auth/login', { email: user.email, password: 'Wrong.pass1' })
    }
    await logIn(server, user.email)
    for (let attempt = 1; attempt <= 4; attempt++) {
      await expectAnswer(
        await postJson(server, '/api/auth/login', { email: user.email, password: 'Wrong.pass1' }),
        401,
        {
          status: 'error',
          errors: { password: [INVALID] },
        },
      )
    }
    await logIn(server, user.email)
  })
})

describe('pre-made accounts', () => {
  test('sign in with the one-time password: status premaid and a token that change-password accepts', async () => {
    const user = await createUser({ premade: true, password: 'Invite.pass9' })
    const response = await postJson(server, '/api/auth/login', { email: user.email, password: 'Invite.pass9' })
    expect(response.headers.getSetCookie()).toEqual([])
    const body = await expectAnswer(response, 200, {
      status: 'premaid',
      message: 'Please choose your own password to continue',
    })
    expect(body.token).toMatch(/^[\w-]{40,}$/)

    const token = body.token as string
    await expectAnswer(await postJson(server, '/api/auth/verify-change-password-token', { token }), 200, {
      status: 'success',
    })
    await expectAnswer(
      await postJson(server, '/api/auth/change-password', {
        password: STRONG_PASSWORD,
        confirmPassword: STRONG_PASSWORD,
        token,
      }),
      200,
      { status: 'success' },
    )

    await expectAnswer(
      await postJson(server, '/api/auth/login', { email: user.email, password: 'Invite.pass9' }),
      401,
      {
        status: 'error',
        errors: { password: [INVALID] },
      },
    )
    const signedIn = await postJson(server, '/api/auth/login', { email: user.email, password: STRONG_PASSWORD })
    await expectAnswer(signedIn, 200, { status: 'success' })
    const [row] = await sql<{ is_premade: boolean }>('select is_premade from users where id = :id', { id: user.id })
    expect(row!.is_premade).toBe(false)
  })

  test('a wrong password for a pre-made account is an ordinary 401', async () => {
    const user = await createUser({ premade: true })
    await expectAnswer(await postJson(server, '/api/auth/login', { email: user.email, password: 'Wrong.pass1' }), 401, {
      status: 'error',
      errors: { password: [INVALID] },
    })
  })
})

describe('POST /api/auth/logout', () => {
  test('ends the session and clears the cookie', async () => {
    const user = await createUser()
    const cookie = await logIn(server, user.email)
    const response = await server.fetch('/api/auth/logout', { method: 'POST', headers: { Cookie: cookie } })
    const cleared = response.headers.getSetCookie().find((line) => line.startsWith('__session='))
    expect(cleared).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/)
    await expectAnswer(response, 200, { status: 'success', message: 'You are signed out' })
    // The old cookie no longer works, even if a client kept it.
    await expectAnswer(await me(server, cookie), 401, { status: 'error' })
    const [sessions] = await sql<{ count: number }>('select count(*)::int as count from sessions where user_id = :id', {
      id: user.id,
    })
    expect(sessions!.count).toBe(0)
  })

  test('ends only this browser’s session', async () => {
    const user = await createUser()
    const phone = await logIn(server, user.email)
    const laptop = await logIn(server, user.email)
    await server.fetch('/api/auth/logout', { method: 'POST', headers: { Cookie: phone } })
    await expectAnswer(await me(server, laptop), 200, { status: 'success' })
  })

  test('a guest logging out still gets success', async () => {
    await expectAnswer(await server.fetch('/api/auth/logout', { method: 'POST' }), 200, { status: 'success' })
  })

  test('GET does not log out: 405', async () => {
    const user = await createUser()
    const cookie = await logIn(server, user.email)
    const response = await server.fetch('/api/auth/logout', { headers: { Cookie: cookie } })
    expect(response.headers.get('Allow')).toBe('POST')
    await expectAnswer(response, 405, { status: 'error' })
    await expectAnswer(await me(server, cookie), 200, { status: 'success' })
  })
})

describe('cross-site requests', () => {
  test('a POST from another site is refused with 403 and changes nothing', async () => {
    const user = await createUser()
    const cookie = await logIn(server, user.email)
    const logout = await server.fetch('/api/auth/logout', {
      method: 'POST',
      headers: { Cookie: cookie, Origin: 'https://evil.example' },
    })
    await expectAnswer(logout, 403, { status: 'error', message: 'Cross-site requests are not allowed' })
    await expectAnswer(await me(server, cookie), 200, { status: 'success' })

    const login = await postJson(
      server,
      '/api/auth/login',
      { email: user.email, password: user.password },
      { Origin: 'null' },
    )
    await expectAnswer(login, 403, { status: 'error' })
    expect(login.headers.getSetCookie()).toEqual([])
  })

  test('a POST from APP_URL or from the address the app was reached on is accepted', async () => {
    const user = await createUser()
    for (const origin of [getEnv().APP_URL, server.baseUrl]) {
      const response = await postJson(
        server,
        '/api/auth/login',
        { email: user.email, password: user.password },
        { Origin: origin },
      )
      await expectAnswer(response, 200, { status: 'success' })
    }
  })
})
