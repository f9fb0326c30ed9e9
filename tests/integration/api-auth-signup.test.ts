import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { RATE_LIMITS } from '#app/services/auth/rate-limit.server.ts'
import {
  createUser,
  expectAnswer,
  logIn,
  mailCount,
  postJson,
  sql,
  STRONG_PASSWORD,
  tokenFromMail,
  uniqueEmail,
} from '#tests/support/auth-api.ts'
import { startTestServer } from '#tests/support/test-server.ts'

let server: Awaited<ReturnType<typeof startTestServer>>
// Behind one trusted proxy, X-Forwarded-For names the client: the per-IP limits count each address on its own.
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

const CONFIRMED = "Your email has been successfully confirmed! You're all set to start exploring Stampwise."
const signUp = (email: string, password = STRONG_PASSWORD, confirmPassword = password) =>
  postJson(server, '/api/auth/signup', { email, password, confirmPassword })

describe('POST /api/auth/signup', () => {
  test('creates an unconfirmed account with a 14-day trial and mails a confirmation link that works', async () => {
    const email = uniqueEmail('new')
    const response = await signUp(`  ${email.toUpperCase()} `)
    expect(response.headers.getSetCookie()).toEqual([])
    const body = await expectAnswer(response, 201, {
      status: 'success',
      message: 'We sent you a link to confirm your email',
    })
    expect(body.email).toBe(email)

    const [user] = await sql<{ id: string; confirmed: boolean; password_hash: string }>(
      'select id, email_confirmed_at is not null as confirmed, password_hash from users where email = :email',
      { email },
    )
    expect(user).toMatchObject({ confirmed: false })
    expect(user!.password_hash).toMatch(/^scrypt\$/)
    const [subscription] = await sql<{ status: string; days: number }>(
      `select status, round(extract(epoch from (trial_ends_at - now())) / 86400)::int as days from subscriptions where user_id = :id`,
      { id: user!.id },
    )
    expect(subscription).toEqual({ status: 'trial', days: 14 })

    const [mail] = await sql<{ subject: string; text_body: string; status: string }>(
      'select subject, text_body, status from mails where to_address = :email',
      { email },
    )
    expect(mail!.status).toBe('stored')
    expect(mail!.text_body).toContain('/email-confirmed?token=')

    await expectAnswer(await postJson(server, '/api/auth/login', { email, password: STRONG_PASSWORD }), 403, {
      status: 'error',
      errors: { email: ['Please confirm your email first. We can send you a new confirmation link.'] },
    })
    const token = await tokenFromMail(email, '/email-confirmed')
    await expectAnswer(await postJson(server, '/api/auth/verify-token', { token }), 200, {
      status: 'success',
      message: CONFIRMED,
    })
    await logIn(server, email)
  })

  test('an address already taken, in any case: 400 on the email field', async () => {
    const existing = await createUser()
    const message = 'An account with this email already exists'
    for (const email of [existing.email, existing.email.toUpperCase()]) {
      await expectAnswer(await signUp(email), 400, { status: 'error', message, errors: { email: [message] } })
    }
    const [row] = await sql<{ count: number }>('select count(*)::int as count from users where email = :email', {
      email: existing.email,
    })
    expect(row!.count).toBe(1)
  })

  test('a weak password: 400 with every rule it breaks', async () => {
    const response = await signUp(uniqueEmail(), 'abc')
    await expectAnswer(response, 400, {
      status: 'error',
      message: '6 characters minimum',
      errors: {
        password: [
          '6 characters minimum',
          'At least one uppercase letter',
          'At least one number',
          'At least one special character !@#$%^&*().,',
        ],
      },
    })
  })

  test('passwords that differ: 400 on confirmPassword', async () => {
    await expectAnswer(await signUp(uniqueEmail(), STRONG_PASSWORD, 'Other.pass1'), 400, {
      status: 'error',
      message: "Passwords don't match",
      errors: { confirmPassword: ["Passwords don't match"] },
    })
  })

  test('an invalid address, missing fields, wrong types and malformed bodies: 400, no account, no mail', async () => {
    const countMails = async () => (await sql<{ count: number }>('select count(*)::int as count from mails'))[0]!.count
    const mailsBefore = await countMails()
    await expectAnswer(await signUp('owner@'), 400, { status: 'error', errors: { email: ['Invalid email format'] } })
    const missing = await postJson(server, '/api/auth/signup', {})
    const body = await expectAnswer(missing, 400, {
      status: 'error',
      errors: {
        email: ['Invalid email format'],
        password: ['6 characters minimum'],
        confirmPassword: ["Passwords don't match"],
      },
    })
    expect(body.message).toBe('Invalid email format')
    await expectAnswer(
      await postJson(server, '/api/auth/signup', { email: 1, password: 2, confirmPassword: null }),
      400,
      {
        status: 'error',
        errors: {
          email: ['Invalid email format'],
          password: ['6 characters minimum'],
          confirmPassword: ["Passwords don't match"],
        },
      },
    )
    await expectAnswer(await postJson(server, '/api/auth/signup', '{email: x}'), 400, {
      status: 'error',
      message: 'The request body is not valid JSON',
    })
    await expectAnswer(await postJson(server, '/api/auth/signup', [{ email: uniqueEmail() }]), 400, {
      status: 'error',
      message: 'The request body must be a JSON object',
    })
    expect(await countMails()).toBe(mailsBefore)
  })

  test('GET: 405', async () => {
    const response = await server.fetch('/api/auth/signup')
    expect(response.headers.get('Allow')).toBe('POST')
    await expectAnswer(response, 405, { status: 'error' })
  })

  test('50 sign-ups an hour per IP: the next one answers 429, another address still signs up', async () => {
    const key = (ip: string) => `${RATE_LIMITS.signupPerIp.name}:${ip}`
    // 50 real sign-ups would spend most of the test hashing passwords: start the window at its limit instead.
    await sql(
      `insert into rate_limit_counters (key, points, expires_at) values (:key, 50, now() + interval '1 hour')`,
      {
        key: key('203.0.113.50'),
      },
    )
    const email = uniqueEmail()
    const body = { email, password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD }
    const blocked = await postJson(proxied, '/api/auth/signup', body, { 'X-Forwarded-For': '203.0.113.50' })
    expect(Number(blocked.headers.get('Retry-After'))).toBeGreaterThan(3500)
    await expectAnswer(blocked, 429, { status: 'error', message: 'Too many attempts. Please try again in 60 minutes.' })
    await expectAnswer(await postJson(proxied, '/api/auth/signup', body, { 'X-Forwarded-For': '203.0.113.51' }), 201, {
      status: 'success',
    })
  })
})

describe('POST /api/auth/verify-token', () => {
  test('is idempotent: the same link confirms once and still answers success', async () => {
    const user = await createUser({ confirmed: false })
    await expectAnswer(await postJson(server, '/api/auth/verify-email', { email: user.email }), 200, {
      status: 'success',
    })
    const token = await tokenFromMail(user.email, '/email-confirmed')
    for (let attempt = 0; attempt < 2; attempt++) {
      await expectAnswer(await postJson(server, '/api/auth/verify-token', { token }), 200, {
        status: 'success',
        message: CONFIRMED,
      })
    }
    const [row] = await sql<{ confirmed: boolean }>(
      'select email_confirmed_at is not null as confirmed from users where id = :id',
      {
        id: user.id,
      },
    )
    expect(row!.confirmed).toBe(true)
  })

  test('an unknown token: 400 with the link message', async () => {
    const message = 'This link is invalid. Please request a new one.'
    await expectAnswer(await postJson(server, '/api/auth/verify-token', { token: 'x'.repeat(43) }), 400, {
      status: 'error',
      message,
      errors: { token: [message] },
    })
  })

  test('an expired link: 400, and the address stays unconfirmed', async () => {
    const user = await createUser({ confirmed: false })
    await postJson(server, '/api/auth/verify-email', { email: user.email })
    const token = await tokenFromMail(user.email, '/email-confirmed')
    await sql(`update one_time_tokens set expires_at = now() - interval '1 minute' where user_id = :id`, {
      id: user.id,
    })
    const message = 'This link has expired. Please request a new one.'
    await expectAnswer(await postJson(server, '/api/auth/verify-token', { token }), 400, {
      status: 'error',
      message,
      errors: { token: [message] },
    })
    const [row] = await sql<{ confirmed: boolean }>(
      'select email_confirmed_at is not null as confirmed from users where id = :id',
      {
        id: user.id,
      },
    )
    expect(row!.confirmed).toBe(false)
  })

  test('a token of another kind (a reset link) does not confirm an address', async () => {
    const user = await createUser({ confirmed: false })
    await postJson(server, '/api/auth/forgot-password', { email: user.email })
    const token = await tokenFromMail(user.email, '/change-password')
    await expectAnswer(await postJson(server, '/api/auth/verify-token', { token }), 400, {
      status: 'error',
      errors: { token: ['This link is invalid. Please request a new one.'] },
    })
  })

  test('a missing, short or non-string token: 400 on the token field', async () => {
    for (const body of [{}, { token: 'short' }, { token: 12345 }, { token: ['x'.repeat(43)] }]) {
      await expectAnswer(await postJson(server, '/api/auth/verify-token', body), 400, {
        status: 'error',
        message: 'This link is invalid',
        errors: { token: ['This link is invalid'] },
      })
    }
    await expectAnswer(await postJson(server, '/api/auth/verify-token', 'token='), 400, {
      status: 'error',
      message: 'The request body is not valid JSON',
    })
    await expectAnswer(await postJson(server, '/api/auth/verify-token', '[]'), 400, { status: 'error' })
    const wrongMethod = await server.fetch('/api/auth/verify-token', { method: 'DELETE' })
    await expectAnswer(wrongMethod, 405, { status: 'error' })
  })
})

describe('POST /api/auth/verify-email (resend)', () => {
  const SENT = 'Email has been sent successfully'

  test('mails a new link to an unconfirmed account; the earlier link keeps working, and so does the new one', async () => {
    const email = uniqueEmail()
    await signUp(email)
    const first = await tokenFromMail(email, '/email-confirmed')
    await expectAnswer(await postJson(server, '/api/auth/verify-email', { email }), 200, {
      status: 'success',
      message: SENT,
    })
    expect(await mailCount(email)).toBe(2)
    const second = await tokenFromMail(email, '/email-confirmed')
    expect(second).not.toBe(first)
    const confirmed = "Your email has been successfully confirmed! You're all set to start exploring Stampwise."
    await expectAnswer(await postJson(server, '/api/auth/verify-token', { token: first }), 200, {
      status: 'success',
      message: confirmed,
    })
    await expectAnswer(await postJson(server, '/api/auth/verify-token', { token: second }), 200, {
      status: 'success',
      message: confirmed,
    })
  })

  test('answers the same for an unknown or an already confirmed address, and mails nothing', async () => {
    const unknown = uniqueEmail('nobody')
    const confirmed = await createUser()
    for (const email of [unknown, confirmed.email]) {
      await expectAnswer(await postJson(server, '/api/auth/verify-email', { email }), 200, {
        status: 'success',
        message: SENT,
      })
      expect(await mailCount(email)).toBe(0)
    }
  })

  test('accepts a form-encoded body; an invalid address is a 400', async () => {
    const form = await server.fetch('/api/auth/verify-email', {
      method: 'POST',
      body: new URLSearchParams({ email: uniqueEmail() }),
    })
    await expectAnswer(form, 200, { status: 'success' })
    await expectAnswer(await postJson(server, '/api/auth/verify-email', { email: 'no' }), 400, {
      status: 'error',
      errors: { email: ['Invalid email format'] },
    })
  })

  test('5 sends an hour per address, then 429', async () => {
    const user = await createUser({ confirmed: false })
    for (let send = 1; send <= 5; send++) {
      await expectAnswer(await postJson(server, '/api/auth/verify-email', { email: user.email }), 200, {
        status: 'success',
      })
    }
    const blocked = await postJson(server, '/api/auth/verify-email', { email: user.email })
    expect(blocked.headers.get('Retry-After')).toMatch(/^\d+$/)
    await expectAnswer(blocked, 429, { status: 'error', message: 'Too many attempts. Please try again in 60 minutes.' })
    expect(await mailCount(user.email)).toBe(5)
  })

  test('without TRUST_PROXY, X-Forwarded-For is ignored: 20 resends an hour from one client, whatever it claims', async () => {
    for (let send = 1; send <= 20; send++) {
      const response = await postJson(
        server,
        '/api/auth/verify-email',
        { email: uniqueEmail() },
        { 'X-Forwarded-For': `198.51.100.${send}` },
      )
      await expectAnswer(response, 200, { status: 'success' })
    }
    const blocked = await postJson(
      server,
      '/api/auth/verify-email',
      { email: uniqueEmail() },
      { 'X-Forwarded-For': '198.51.100.99' },
    )
    await expectAnswer(blocked, 429, { status: 'error' })
  })
})
