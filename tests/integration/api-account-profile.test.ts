import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { expectAnswer, logIn, me, postJson, sql, STRONG_PASSWORD, uniqueEmail } from '#tests/support/auth-api.ts'
import { createOwner, userRow } from '#tests/support/profile-owner.ts'
import { startSmtpPeer } from '#tests/support/smtp-peer.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * POST /api/account/profile/update/email/{userId} and POST /api/account/profile/delete/{id}: the JSON answer
 * shape, 401 for a guest, 403 for another user's id, 400 with field errors, 405 for other methods.
 */
let server: Awaited<ReturnType<typeof startTestServer>>
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>
beforeAll(async () => {
  smtp = await startSmtpPeer()
  process.env.SMTP_URL = smtp.url
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
  await smtp.close()
  delete process.env.SMTP_URL
})
beforeEach(async () => {
  await sql('delete from rate_limit_counters')
})

const emailPath = (id: string) => `/api/account/profile/update/email/${id}`
const deletePath = (id: string) => `/api/account/profile/delete/${id}`

async function signedInOwner() {
  const owner = await createOwner()
  return { ...owner, cookie: await logIn(server, owner.email) }
}

async function waitForMail(to: string, subject: string) {
  for (let i = 0; i < 100; i++) {
    const mail = smtp.messagesTo(to).find((message) => message.subject.includes(subject))
    if (mail) return mail
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no mail "${subject}" to ${to}`)
}

describe.each([
  ['email change', emailPath, { email: 'new@example.com', password: STRONG_PASSWORD }],
  ['profile deletion', deletePath, { confirm: 'someone@example.com' }],
] as const)('%s: who may call', (_name, path, body) => {
  test('a guest gets 401', async () => {
    const owner = await createOwner()
    await expectAnswer(await postJson(server, path(owner.id), body), 401, {
      status: 'error',
      message: 'Please sign in',
    })
  })

  test("another owner's id, or one that is no id, gets 403", async () => {
    const owner = await signedInOwner()
    const other = await createOwner()
    for (const id of [other.id, 'not-an-id']) {
      await expectAnswer(await postJson(server, path(id), body, { Cookie: owner.cookie }), 403, { status: 'error' })
    }
    expect(await userRow(other.id)).toMatchObject({ email: other.email })
  })

  test('other methods get 405', async () => {
    const owner = await signedInOwner()
    const get = await server.fetch(path(owner.id), { headers: { Cookie: owner.cookie } })
    await expectAnswer(get, 405, { status: 'error' })
    const put = await server.fetch(path(owner.id), { method: 'PUT', headers: { Cookie: owner.cookie }, body: '{}' })
    await expectAnswer(put, 405, { status: 'error' })
    expect(put.headers.get('Allow')).toBe('POST')
  })

  test('a body that is not JSON gets 400', async () => {
    const owner = await signedInOwner()
    await expectAnswer(await postJson(server, path(owner.id), '{not json', { Cookie: owner.cookie }), 400, {
      status: 'error',
    })
  })
})

describe('POST /api/account/profile/update/email/{userId}', () => {
  test('starts the change: a link to the new address, a notice to the old one; the link makes the change', async () => {
    const owner = await signedInOwner()
    const newEmail = uniqueEmail('api-moved')
    const body = await expectAnswer(
      await postJson(
        server,
        emailPath(owner.id),
        { email: newEmail, password: STRONG_PASSWORD },
        { Cookie: owner.cookie },
      ),
      200,
      { status: 'success' },
    )
    expect(body.message).toContain(newEmail)
    expect(await userRow(owner.id)).toMatchObject({ email: owner.email })
    await waitForMail(owner.email, 'Your Stampwise e-mail address is changing')
    const link = /https?:\/\/\S+(\/email-confirmed\?token=[\w-]+)/.exec(
      (await waitForMail(newEmail, 'Confirm your new e-mail')).text,
    )
    expect(link).not.toBeNull()
    const confirmed = await postJson(server, '/api/auth/verify-token', {
      token: new URL(link![1]!, server.baseUrl).searchParams.get('token'),
    })
    expect(confirmed.status).toBe(200)
    expect(await userRow(owner.id)).toMatchObject({ email: newEmail, email_confirmed: true })
    const signedIn = (await (await me(server, owner.cookie)).json()) as { user: { email: string } }
    expect(signedIn.user.email).toBe(newEmail)
  })

  test('answers 400 with field errors', async () => {
    const owner = await signedInOwner()
    const taken = await createOwner()
    const call = (body: unknown) => postJson(server, emailPath(owner.id), body, { Cookie: owner.cookie })
    await expectAnswer(await call({ email: 'nope', password: STRONG_PASSWORD }), 400, {
      status: 'error',
      errors: { email: ['Invalid email format'] },
    })
    await expectAnswer(await call({ email: uniqueEmail() }), 400, {
      status: 'error',
      errors: { password: ['Enter your current password'] },
    })
    await expectAnswer(await call({ email: uniqueEmail(), password: 'Wrong.pass1' }), 400, {
      status: 'error',
      message: 'The password is not correct',
      errors: { password: ['The password is not correct'] },
    })
    await expectAnswer(await call({ email: taken.email, password: STRONG_PASSWORD }), 400, {
      status: 'error',
      message: 'An account with this email already exists',
      errors: { email: ['An account with this email already exists'] },
    })
    await expectAnswer(await call({ email: owner.email, password: STRONG_PASSWORD }), 400, {
      status: 'error',
      errors: { email: ['This is already your email address'] },
    })
    await expectAnswer(await call({ email: ['a@example.com'], password: 42 }), 400, {
      status: 'error',
      errors: expect.any(Object) as never,
    })
  })

  test('at most five changes an hour, so the call cannot flood mailboxes', async () => {
    const owner = await signedInOwner()
    const call = () =>
      postJson(
        server,
        emailPath(owner.id),
        { email: uniqueEmail('flood'), password: STRONG_PASSWORD },
        { Cookie: owner.cookie },
      )
    for (let i = 0; i < 5; i++) await expectAnswer(await call(), 200, { status: 'success' })
    const limited = await call()
    expect(limited.headers.get('Retry-After')).toMatch(/^\d+$/)
    await expectAnswer(limited, 429, { status: 'error' })
  })

  test('an account without a password needs none', async () => {
    const owner = await signedInOwner()
    await sql('update users set password_hash = null where id = :id', { id: owner.id })
    const newEmail = uniqueEmail('api-social')
    await expectAnswer(
      await postJson(server, emailPath(owner.id), { email: newEmail }, { Cookie: owner.cookie }),
      200,
      { status: 'success' },
    )
    await waitForMail(newEmail, 'Confirm your new e-mail')
  })
})

describe('POST /api/account/profile/delete/{id}', () => {
  test('a confirmation that is not the address gets 400 and deletes nothing', async () => {
    const owner = await signedInOwner()
    const call = (body: unknown) => postJson(server, deletePath(owner.id), body, { Cookie: owner.cookie })
    await expectAnswer(await call({ confirm: 'someone@example.com' }), 400, {
      status: 'error',
      message: 'This does not match your email address',
      errors: { confirm: ['This does not match your email address'] },
    })
    await expectAnswer(await call({}), 400, {
      status: 'error',
      errors: { confirm: ['Type your email address to confirm'] },
    })
    expect(await userRow(owner.id)).toBeDefined()
  })

  test('deletes the profile with its cards and ends the session', async () => {
    const owner = await signedInOwner()
    await sql(`insert into cards (user_id, slug, title) values (:id, :slug, 'Coffee')`, {
      id: owner.id,
      slug: `api-${owner.id.slice(0, 8)}`,
    })
    const response = await postJson(server, deletePath(owner.id), { confirm: owner.email }, { Cookie: owner.cookie })
    await expectAnswer(response, 200, { status: 'success', message: 'Your profile has been deleted' })
    expect(response.headers.getSetCookie().find((line) => line.startsWith('__session='))).toMatch(
      /Max-Age=0|Expires=Thu, 01 Jan 1970/,
    )
    expect(await userRow(owner.id)).toBeUndefined()
    const [{ count }] = (await sql<{ count: number }>('select count(*)::int as count from cards where user_id = :id', {
      id: owner.id,
    })) as [{ count: number }]
    expect(count).toBe(0)
    expect((await me(server, owner.cookie)).status).toBe(401)
    const login = await postJson(server, '/api/auth/login', { email: owner.email, password: STRONG_PASSWORD })
    expect(login.status).toBe(401)
  })
})
