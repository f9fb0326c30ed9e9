import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import {
  createUser,
  expectAnswer,
  logIn,
  mailCount,
  me,
  postJson,
  sql,
  STRONG_PASSWORD,
  tokenFromMail,
  uniqueEmail,
} from '#tests/support/auth-api.ts'
import { startTestServer } from '#tests/support/test-server.ts'

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
beforeEach(async () => {
  await sql('delete from rate_limit_counters')
})

const SENT = 'If an account exists for this email, we sent it a link to reset the password.'
const UPDATED = 'Your password has been updated. Please log in with your new password.'
const NEW_PASSWORD = 'Fresh.start2'
const INVALID_LINK = 'This link is invalid. Please request a new one.'
const EXPIRED_LINK = 'This link has expired. Please request a new one.'
const USED_LINK = 'This link has already been used. Please request a new one.'

async function resetToken(email: string) {
  await expectAnswer(await postJson(server, '/api/auth/forgot-password', { email }), 200, {
    status: 'success',
    message: SENT,
  })
  return tokenFromMail(email, '/change-password')
}

const changePassword = (token: string, password = NEW_PASSWORD, confirmPassword = password) =>
  postJson(server, '/api/auth/change-password', { password, confirmPassword, token })

describe('POST /api/auth/forgot-password', () => {
  test('mails a one-hour reset link to an existing account', async () => {
    const user = await createUser()
    await resetToken(user.email)
    const [token] = await sql<{ minutes: number }>(
      `select round(extract(epoch from (expires_at - now())) / 60)::int as minutes from one_time_tokens
       where user_id = :id and kind = 'password_reset'`,
      { id: user.id },
    )
    expect(token!.minutes).toBe(60)
  })

  test('answers the same for an unknown address, and mails nothing', async () => {
    const email = uniqueEmail('nobody')
    await expectAnswer(await postJson(server, '/api/auth/forgot-password', { email }), 200, {
      status: 'success',
      message: SENT,
    })
    expect(await mailCount(email)).toBe(0)
  })

  test('invalid input and malformed bodies: 400; GET: 405', async () => {
    await expectAnswer(await postJson(server, '/api/auth/forgot-password', { email: 'nope' }), 400, {
      status: 'error',
      message: 'Invalid email format',
      errors: { email: ['Invalid email format'] },
    })
    await expectAnswer(await postJson(server, '/api/auth/forgot-password', { email: { $ne: '' } }), 400, {
      status: 'error',
      errors: { email: ['Invalid email format'] },
    })
    await expectAnswer(await postJson(server, '/api/auth/forgot-password', '{'), 400, { status: 'error' })
    await expectAnswer(await postJson(server, '/api/auth/forgot-password', '["a@b.co"]'), 400, { status: 'error' })
    const get = await server.fetch('/api/auth/forgot-password')
    expect(get.headers.get('Allow')).toBe('POST')
    await expectAnswer(get, 405, { status: 'error' })
  })

  test('behind a trusted proxy, 20 requests an hour per client address; another address is not affected', async () => {
    for (let n = 1; n <= 20; n++) {
      const response = await postJson(
        proxied,
        '/api/auth/forgot-password',
        { email: uniqueEmail('nobody') },
        { 'X-Forwarded-For': '203.0.113.20' },
      )
      await expectAnswer(response, 200, { status: 'success' })
    }
    const blocked = await postJson(
      proxied,
      '/api/auth/forgot-password',
      { email: uniqueEmail() },
      { 'X-Forwarded-For': '203.0.113.20' },
    )
    expect(blocked.headers.get('Retry-After')).toMatch(/^\d+$/)
    await expectAnswer(blocked, 429, { status: 'error', message: 'Too many attempts. Please try again in 60 minutes.' })
    const other = await postJson(
      proxied,
      '/api/auth/forgot-password',
      { email: uniqueEmail() },
      { 'X-Forwarded-For': '203.0.113.21' },
    )
    await expectAnswer(other, 200, { status: 'success' })
  })
})

describe('POST /api/auth/verify-change-password-token', () => {
  const verify = (token: unknown) => postJson(server, '/api/auth/verify-change-password-token', { token })

  test('a fresh link is valid, and checking it does not use it', async () => {
    const user = await createUser()
    const token = await resetToken(user.email)
    for (let check = 0; check < 2; check++) {
      await expectAnswer(await verify(token), 200, { status: 'success', message: 'This link is valid' })
    }
    await expectAnswer(await changePassword(token), 200, { status: 'success' })
  })

  test('unknown, expired and used links: 400 with the link message', async () => {
    await expectAnswer(await verify('y'.repeat(43)), 400, {
      status: 'error',
      message: INVALID_LINK,
      errors: { token: [INVALID_LINK] },
    })

    const expiring = await createUser()
    const expired = await resetToken(expiring.email)
    await sql(`update one_time_tokens set expires_at = now() - interval '1 second' where user_id = :id`, {
      id: expiring.id,
    })
    await expectAnswer(await verify(expired), 400, {
      status: 'error',
      message: EXPIRED_LINK,
      errors: { token: [EXPIRED_LINK] },
    })

    const user = await createUser()
    const used = await resetToken(user.email)
    await expectAnswer(await changePassword(used), 200, { status: 'success' })
    await expectAnswer(await verify(used), 400, { status: 'error', message: USED_LINK, errors: { token: [USED_LINK] } })
  })

  test('an e-mail confirmation link is not a reset link', async () => {
    const email = uniqueEmail()
    await postJson(server, '/api/auth/signup', { email, password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD })
    const token = await tokenFromMail(email, '/email-confirmed')
    await expectAnswer(await verify(token), 400, { status: 'error', errors: { token: [INVALID_LINK] } })
  })

  test('a missing or malformed token: 400; GET: 405', async () => {
    for (const token of [undefined, '', 'abc', 42, null]) {
      await expectAnswer(await verify(token), 400, {
        status: 'error',
        message: 'This link is invalid',
        errors: { token: ['This link is invalid'] },
      })
    }
    await expectAnswer(await postJson(server, '/api/auth/verify-change-password-token', 'nope'), 400, {
      status: 'error',
    })
    await expectAnswer(await server.fetch('/api/auth/verify-change-password-token'), 405, { status: 'error' })
  })
})

describe('POST /api/auth/change-password', () => {
  test('sets the new password: the old one stops working, the link works once', async () => {
    const user = await createUser()
    const token = await resetToken(user.email)
    const body = await expectAnswer(await changePassword(token), 200, { status: 'success', message: UPDATED })
    expect(body.msg).toBe(UPDATED)

    await expectAnswer(
      await postJson(server, '/api/auth/login', { email: user.email, password: STRONG_PASSWORD }),
      401,
      {
        status: 'error',
        errors: { password: ['Invalid email or password'] },
      },
    )
    await logIn(server, user.email, NEW_PASSWORD)

    await expectAnswer(await changePassword(token, 'Third.try3'), 400, {
      status: 'error',
      message: USED_LINK,
      errors: { token: [USED_LINK] },
    })
    await logIn(server, user.email, NEW_PASSWORD)
  })

  test('ends every session of the account', async () => {
    const user = await createUser()
    const phone = await logIn(server, user.email)
    const laptop = await logIn(server, user.email)
    await expectAnswer(await me(server, laptop), 200, { status: 'success' })

    const token = await resetToken(user.email)
    await expectAnswer(await changePassword(token), 200, { status: 'success' })
    for (const cookie of [phone, laptop]) await expectAnswer(await me(server, cookie), 401, { status: 'error' })
  })

  test('a second reset e-mail makes the first link void', async () => {
    const user = await createUser()
    const first = await resetToken(user.email)
    const second = await resetToken(user.email)
    await expectAnswer(await changePassword(first), 400, { status: 'error', errors: { token: [USED_LINK] } })
    await expectAnswer(await changePassword(second), 200, { status: 'success' })
  })

  test('an expired link: 400, and the password stays as it was', async () => {
    const user = await createUser()
    const token = await resetToken(user.email)
    await sql(`update one_time_tokens set expires_at = now() - interval '1 second' where user_id = :id`, {
      id: user.id,
    })
    await expectAnswer(await changePassword(token), 400, {
      status: 'error',
      message: EXPIRED_LINK,
      errors: { token: [EXPIRED_LINK] },
    })
    await logIn(server, user.email)
  })

  test('an unknown link: 400 with msg for the client to show', async () => {
    const body = await expectAnswer(await changePassword('z'.repeat(43)), 400, {
      status: 'error',
      message: INVALID_LINK,
      errors: { token: [INVALID_LINK] },
    })
    expect(body.msg).toBe(INVALID_LINK)
  })

  test('the new password follows the sign-up policy; mismatches say so', async () => {
    const user = await createUser()
    const token = await resetToken(user.email)
    await expectAnswer(await changePassword(token, 'short'), 400, {
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
    await expectAnswer(await changePassword(token, NEW_PASSWORD, 'Fresh.start3'), 400, {
      status: 'error',
      message: 'Passwords do not match',
      errors: { confirmPassword: ['Passwords do not match'] },
    })
    // Invalid input does not use the link.
    await expectAnswer(await changePassword(token), 200, { status: 'success' })
  })

  test('missing fields, wrong types and malformed bodies: 400; GET: 405', async () => {
    await expectAnswer(await postJson(server, '/api/auth/change-password', {}), 400, {
      status: 'error',
      errors: {
        password: ['6 characters minimum'],
        confirmPassword: ['Passwords do not match'],
        token: ['This link is invalid'],
      },
    })
    await expectAnswer(
      await postJson(server, '/api/auth/change-password', {
        password: [NEW_PASSWORD],
        confirmPassword: NEW_PASSWORD,
        token: 7,
      }),
      400,
      {
        status: 'error',
        errors: { password: ['6 characters minimum'], token: ['This link is invalid'] },
      },
    )
    await expectAnswer(await postJson(server, '/api/auth/change-password', '{"password": '), 400, {
      status: 'error',
      message: 'The request body is not valid JSON',
    })
    await expectAnswer(await postJson(server, '/api/auth/change-password', '[1, 2, 3]'), 400, {
      status: 'error',
      message: 'The request body must be a JSON object',
    })
    await expectAnswer(await server.fetch('/api/auth/change-password'), 405, { status: 'error' })
  })

  test('confirms the address of an account that had not confirmed it (the link came by e-mail)', async () => {
    const user = await createUser({ confirmed: false })
    const token = await resetToken(user.email)
    await expectAnswer(await changePassword(token), 200, { status: 'success' })
    await logIn(server, user.email, NEW_PASSWORD)
  })

  test('a cross-site POST is refused before the link is used', async () => {
    const user = await createUser()
    const token = await resetToken(user.email)
    const response = await postJson(
      server,
      '/api/auth/change-password',
      { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD, token },
      { Origin: 'https://attacker.example' },
    )
    await expectAnswer(response, 403, { status: 'error' })
    await expectAnswer(await changePassword(token), 200, { status: 'success' })
  })
})
