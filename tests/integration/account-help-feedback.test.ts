import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { expectAnswer, postJson, sql } from '#tests/support/auth-api.ts'
import { startSmtpPeer } from '#tests/support/smtp-peer.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * The owner's FAQ, the Feedback form (/account/contact-us, also the action of the header's feedback sender) and
 * POST /api/account/feedback. Mail goes over SMTP to a real peer on loopback.
 */
const SUPPORT_EMAIL = 'help-desk@example.com'
const SENT = 'Thanks! Your message has been sent.'
let server: Awaited<ReturnType<typeof startTestServer>>
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>

beforeAll(async () => {
  smtp = await startSmtpPeer()
  Object.assign(process.env, { SMTP_URL: smtp.url, SUPPORT_EMAIL })
  resetEnvForTests()
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
  await smtp.close()
  delete process.env.SMTP_URL
  delete process.env.SUPPORT_EMAIL
  resetEnvForTests()
})
beforeEach(async () => {
  await sql('delete from rate_limit_counters')
})

const storedMessages = (userId: string) =>
  sql<{ source: string; email: string; subject: string | null; message: string }>(
    'select source, email, subject, message from feedback_messages where user_id = :userId order by created_at',
    { userId },
  )

async function mailWithSubject(subject: string) {
  for (let i = 0; i < 100; i++) {
    const mail = smtp.messagesTo(SUPPORT_EMAIL).find((item) => item.subject === subject)
    if (mail) return mail
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no mail "${subject}" reached ${SUPPORT_EMAIL}`)
}

/** Fills the owner's hourly allowance, so the next message is over the limit. */
const exhaustFeedbackLimit = (userId: string) =>
  sql(`insert into rate_limit_counters (key, points, expires_at) values (:key, 1000000, now() + interval '1 hour')`, {
    key: `account-feedback:${userId}`,
  })

describe('/account/help', () => {
  test('a guest is sent to sign in; an owner sees the FAQ with the plans’ numbers', async () => {
    expect((await server.get('/account/help')).headers.get('Location')).toBe('/login?redirectTo=%2Faccount%2Fhelp')
    const { cookie } = await signedInOwner(server)
    const response = await server.get('/account/help', cookie)
    expect(response.status).toBe(200)
    const html = await response.text()
    expect(html).toContain('<h1>FAQ</h1>')
    expect(html).toContain('<details class="faq__item">')
    for (const text of [
      '14 days, free',
      '$19',
      '$190',
      '$39',
      '$390',
      '$79',
      '$790',
      'additional quota',
      'bank transfer',
    ]) {
      expect(html).toContain(text)
    }
    expect(html).toContain('href="/account/contact-us"')
  })
})

describe('/account/contact-us', () => {
  test('shows the Feedback form with the owner’s e-mail', async () => {
    const owner = await signedInOwner(server)
    const html = await (await server.get('/account/contact-us', owner.cookie)).text()
    expect(html).toContain('<h1>Feedback form</h1>')
    expect(html).toContain(owner.email)
  })

  test('stores the message as the owner’s, mails it to SUPPORT_EMAIL, and comes back with a toast', async () => {
    const owner = await signedInOwner(server)
    const response = await server.post(
      '/account/contact-us',
      { subject: 'Invoice question', message: 'Where is my invoice?' },
      owner.cookie,
    )
    expect(response.status).toBe(303)
    expect(response.headers.get('Location')).toBe('/account/contact-us')
    expect(response.headers.getSetCookie().some((line) => line.startsWith('__toast='))).toBe(true)
    expect(await storedMessages(owner.id)).toEqual([
      { source: 'account', email: owner.email, subject: 'Invoice question', message: 'Where is my invoice?' },
    ])
    const mail = await mailWithSubject('[Stampwise account] Invoice question')
    expect(mail.text).toContain(owner.email)
    expect(mail.text).toContain('Where is my invoice?')
  })

  test('redirectTo brings the header’s sender back to a same-site path only', async () => {
    const owner = await signedInOwner(server)
    const cases = [
      ['/account/help?x=1', '/account/help?x=1'],
      ['//evil.example/path', '/account/contact-us'],
      ['https://evil.example/', '/account/contact-us'],
      ['/\\evil.example', '/account/contact-us'],
    ]
    for (const [redirectTo, expected] of cases) {
      const response = await server.post(
        '/account/contact-us',
        { message: `From ${redirectTo}`, redirectTo: redirectTo! },
        owner.cookie,
      )
      expect(response.status, redirectTo).toBe(303)
      expect(response.headers.get('Location'), redirectTo).toBe(expected)
    }
    expect(await storedMessages(owner.id)).toHaveLength(cases.length)
  })

  test('intent=inline (the sender with JavaScript) answers in place, without a redirect', async () => {
    const owner = await signedInOwner(server)
    const response = await server.post(
      '/account/contact-us',
      { message: 'Inline hello', intent: 'inline' },
      owner.cookie,
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('Location')).toBeNull()
    expect((await storedMessages(owner.id)).map((row) => row.subject)).toEqual([null])
  })

  test('invalid input is 400 with the messages, stores nothing; a guest is sent to sign in; over the limit is 429', async () => {
    const owner = await signedInOwner(server)
    const empty = await server.post('/account/contact-us', { subject: 'Hi', message: '   ' }, owner.cookie)
    expect(empty.status).toBe(400)
    expect(await empty.text()).toContain('Write your message')
    const long = await server.post('/account/contact-us', { subject: 'x'.repeat(151), message: 'Hello' }, owner.cookie)
    expect(long.status).toBe(400)
    expect(await long.text()).toContain('Keep the subject to 150 characters or fewer')
    const fromHeader = await server.post(
      '/account/contact-us',
      { message: '', redirectTo: '/account/help' },
      owner.cookie,
    )
    expect(await fromHeader.text()).toContain('name="redirectTo" value="/account/help"') // kept for the retry
    expect(await storedMessages(owner.id)).toEqual([])

    const guest = await server.post('/account/contact-us', { message: 'Hello' })
    expect(guest.headers.get('Location')).toMatch(/^\/login\?redirectTo=/)

    await exhaustFeedbackLimit(owner.id)
    const limited = await server.post('/account/contact-us', { message: 'One more' }, owner.cookie)
    expect(limited.status).toBe(429)
    expect(await limited.text()).toContain('Too many attempts')
    expect(await storedMessages(owner.id)).toEqual([])
  })
})

describe('POST /api/account/feedback', () => {
  test('401 for a guest', async () => {
    await expectAnswer(await postJson(server, '/api/account/feedback', { message: 'Hi' }), 401, {
      status: 'error',
      message: 'Please sign in',
    })
  })

  test('400 with field errors for invalid input or a body that is not JSON', async () => {
    const { cookie } = await signedInOwner(server)
    await expectAnswer(await postJson(server, '/api/account/feedback', { subject: 'Hi' }, { Cookie: cookie }), 400, {
      status: 'error',
      errors: { message: ['Write your message'] },
    })
    await expectAnswer(
      await postJson(server, '/api/account/feedback', { subject: 5, message: 'x'.repeat(5001) }, { Cookie: cookie }),
      400,
      {
        status: 'error',
        errors: { subject: ['Enter a subject'], message: ['Keep your message to 5,000 characters or fewer'] },
      },
    )
    await expectAnswer(await postJson(server, '/api/account/feedback', '{oops', { Cookie: cookie }), 400, {
      status: 'error',
      message: 'The request body is not valid JSON',
    })
  })

  test('200 for a JSON or a form body: stored and mailed', async () => {
    const owner = await signedInOwner(server)
    const body = await expectAnswer(
      await postJson(
        server,
        '/api/account/feedback',
        { subject: 'API subject', message: 'From the API' },
        { Cookie: owner.cookie },
      ),
      200,
      { status: 'success', message: SENT },
    )
    expect(body.feedback).toEqual({ id: expect.any(String) })
    const form = await server.fetch('/api/account/feedback', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: owner.cookie },
      body: new URLSearchParams({ message: 'From a form' }),
    })
    await expectAnswer(form, 200, { status: 'success', message: SENT })
    expect((await storedMessages(owner.id)).map((row) => [row.subject, row.message])).toEqual([
      ['API subject', 'From the API'],
      [null, 'From a form'],
    ])
    expect((await mailWithSubject('[Stampwise account] API subject')).text).toContain('From the API')
  })

  test('405 for other methods, 429 over the limit', async () => {
    const owner = await signedInOwner(server)
    const getAnswer = await server.get('/api/account/feedback', owner.cookie)
    await expectAnswer(getAnswer, 405, { status: 'error' })
    expect(getAnswer.headers.get('Allow')).toBe('POST')
    const put = await server.fetch('/api/account/feedback', {
      method: 'PUT',
      headers: { Cookie: owner.cookie },
      body: '{}',
    })
    await expectAnswer(put, 405, { status: 'error' })

    await exhaustFeedbackLimit(owner.id)
    const limited = await postJson(server, '/api/account/feedback', { message: 'Hi' }, { Cookie: owner.cookie })
    await expectAnswer(limited, 429, { status: 'error' })
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0)
  })
})
