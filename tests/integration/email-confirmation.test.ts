import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createUser, sql, STRONG_PASSWORD, uniqueEmail } from '#tests/support/auth-api.ts'
import { startSmtpPeer } from '#tests/support/smtp-peer.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * From sign-up to the first page after login, as a browser without JavaScript goes: form posts and the links of the
 * mails, which go over SMTP to a real peer on loopback.
 */
let server: Awaited<ReturnType<typeof startTestServer>>
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>
beforeAll(async () => {
  smtp = await startSmtpPeer()
  process.env.SMTP_URL = smtp.url // read by the build when it first needs its configuration
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

const CONFIRMED = 'successfully confirmed'

/** The confirmation links mailed to `to`, oldest first, once `count` have arrived. */
async function confirmationLinks(to: string, count: number): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const links = smtp
      .messagesTo(to)
      .filter((mail) => mail.subject.includes('Confirm your e-mail'))
      .map((mail) => /https?:\/\/\S+(\/email-confirmed\?token=[\w-]+)/.exec(mail.text)?.[1])
    if (links.length >= count) {
      expect(links.every(Boolean), 'a link in every confirmation mail').toBe(true)
      return links as string[]
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`fewer than ${count} confirmation mails to ${to}`)
}

async function signUpAndResend() {
  const email = uniqueEmail('resend')
  const signUp = await server.post('/sign-up', { email, password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD })
  expect(signUp.headers.get('Location')).toBe(`/verify-email?${new URLSearchParams({ email })}`)
  await confirmationLinks(email, 1)
  const resend = await server.post(`/verify-email?${new URLSearchParams({ email })}`, { email })
  expect(resend.status).toBe(302)
  const links = await confirmationLinks(email, 2)
  expect(links[0]).not.toBe(links[1])
  return { email, first: links[0]!, second: links[1]! }
}

const isConfirmed = async (email: string) =>
  (
    await sql<{ confirmed: boolean }>(
      'select email_confirmed_at is not null as confirmed from users where email = :email',
      { email },
    )
  )[0]!.confirmed

async function expectConfirmedPage(response: Response) {
  expect(response.status).toBe(200)
  const html = await response.text()
  expect(html).toContain(CONFIRMED)
  expect(html).not.toContain('already been used')
}

describe("after 'Resend', every unexpired confirmation link works", () => {
  test('the FIRST mail’s link confirms the address, and the second link then lands as confirmed too', async () => {
    const { email, first, second } = await signUpAndResend()
    await expectConfirmedPage(await server.get(first))
    expect(await isConfirmed(email)).toBe(true)
    await expectConfirmedPage(await server.get(second))
    // Opening a link again is still no error: confirming is idempotent.
    await expectConfirmedPage(await server.get(first))
  })

  test('the second mail’s link first, then the first mail’s link: both land as confirmed', async () => {
    const { email, first, second } = await signUpAndResend()
    await expectConfirmedPage(await server.get(second))
    await expectConfirmedPage(await server.get(first))
    expect(await isConfirmed(email)).toBe(true)
  })

  test('an expired link still says so', async () => {
    const { first } = await signUpAndResend()
    await sql(`update one_time_tokens set expires_at = now() - interval '1 minute' where kind = 'email_verification'`)
    const response = await server.get(first)
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('This link has expired. Please request a new one.')
  })
})

describe('the first login lands where the owner can start', () => {
  async function logInFrom(loginPath: string, email: string) {
    const redirectTo = new URL(loginPath, server.baseUrl).searchParams.get('redirectTo')
    const response = await server.post(loginPath, {
      email,
      password: STRONG_PASSWORD,
      ...(redirectTo ? { redirectTo } : {}),
    })
    expect(response.status).toBe(302)
    return response.headers.get('Location')
  }

  test("confirm → 'Get started' → login → /main for an owner with no card", async () => {
    const email = uniqueEmail('started')
    await server.post('/sign-up', { email, password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD })
    const [link] = await confirmationLinks(email, 1)
    const confirmed = await (await server.get(link!)).text()
    const getStarted = /<a[^>]*href="([^"]+)"[^>]*>Get started<\/a>/.exec(confirmed)
    expect(getStarted?.[1]).toBe('/account')

    const guest = await server.get(getStarted![1]!)
    expect(guest.status).toBe(302)
    const loginPath = guest.headers.get('Location')!
    expect(loginPath).toBe('/login?redirectTo=%2Faccount')
    expect(await logInFrom(loginPath, email)).toBe('/main')
  })

  test('an owner with a card lands on /account, and a page other than /account is kept for an owner without', async () => {
    const withCard = await createUser()
    await sql(`insert into cards (user_id, slug) values (:id, :slug)`, {
      id: withCard.id,
      slug: `card-${withCard.id.slice(0, 8)}`,
    })
    expect(await logInFrom('/login?redirectTo=%2Faccount', withCard.email)).toBe('/account')

    const withoutCard = await createUser()
    expect(await logInFrom('/login?redirectTo=%2Faccount%2Fprofile', withoutCard.email)).toBe('/account/profile')
    expect(await logInFrom('/login?redirectTo=%2Faccount%3Ftab%3Dcards', withoutCard.email)).toBe('/main')
    expect(await logInFrom('/login', withoutCard.email)).toBe('/main')
  })
})
