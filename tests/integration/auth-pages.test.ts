import { type AddressInfo } from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { type ServerBuild } from '@remix-run/node'
import { QueryTypes } from 'sequelize'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { getEnv } from '#app/server/env.server.ts'
import { hashPassword } from '#app/services/auth/password.server.ts'
import { startTestServer } from '#tests/support/test-server.ts'
import { createApp } from '../../server.ts'

/**
 * The auth screens at HTTP level, as a browser without JavaScript uses them: form posts, redirects, cookies.
 * The database is reached in SQL (models belong to the Remix build).
 */
type TestServer = Awaited<ReturnType<typeof startTestServer>>
let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})
// Every request comes from 127.0.0.1: each test starts with fresh per-IP counts.
beforeEach(async () => {
  await sql('delete from rate_limit_counters')
})

const PASSWORD = 'Stamp.card1'
const GUEST_ONLY = [
  '/sign-up',
  '/forgot-password',
  '/reset-password-link',
  '/change-password',
  '/password-updated',
  '/verify-email',
]

function sql<Row extends object = Record<string, unknown>>(query: string, replacements: Record<string, unknown> = {}) {
  return getSequelize().query<Row>(query, { replacements, type: QueryTypes.SELECT })
}

let counter = 0
const uniqueEmail = (label = 'owner') => `${label}-${Date.now().toString(36)}-${++counter}@example.com`

async function createOwner({ confirmed = true, premade = false, cards = 0 } = {}) {
  const email = uniqueEmail()
  const [row] = await sql<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at, is_premade)
     values (:email, :hash, case when :confirmed then now() end, :premade) returning id`,
    { email, hash: await hashPassword(PASSWORD), confirmed, premade },
  )
  const id = row!.id
  for (let i = 0; i < cards; i++) {
    await sql(`insert into cards (user_id, slug, title, business_name) values (:id, :slug, :title, 'Corner Coffee')`, {
      id,
      slug: `card-${id.slice(0, 8)}-${i}`,
      title: `Coffee card ${i + 1}`,
    })
  }
  return { id, email }
}

function cookieFrom(response: Response, name: string): string {
  const line = response.headers.getSetCookie().find((value) => value.startsWith(`${name}=`))
  expect(line, `a ${name} cookie`).toBeDefined()
  return line!.split(';')[0]!
}

async function signIn(email: string, fields: Record<string, string> = {}, path = '/login') {
  const response = await server.post(path, { email, password: PASSWORD, ...fields })
  expect(response.status).toBe(302)
  return { response, cookie: cookieFrom(response, '__session'), location: response.headers.get('Location') }
}

async function latestLink(email: string, pathname: string) {
  const [mail] = await sql<{ text_body: string }>(
    'select text_body from mails where to_address = :email order by created_at desc limit 1',
    { email },
  )
  const match = new RegExp(`https?://\\S+(${pathname}\\?token=[\\w-]+)`).exec(mail?.text_body ?? '')
  expect(match, `a ${pathname} link mailed to ${email}`).not.toBeNull()
  return match![1]!
}

describe('guest-only pages', () => {
  test('a guest sees every one of them', async () => {
    for (const path of ['/login', ...GUEST_ONLY]) {
      const response = await server.get(path)
      expect(response.status, path).toBeLessThan(500)
      expect(response.headers.get('Location'), path).toBeNull()
    }
  })

  test('a signed-in owner without cards is sent to /main from /login and to /account from the others', async () => {
    const { cookie } = await signIn((await createOwner()).email)
    expect((await server.get('/login', cookie)).headers.get('Location')).toBe('/main')
    for (const path of GUEST_ONLY) {
      const response = await server.get(path, cookie)
      expect(response.status, path).toBe(302)
      expect(response.headers.get('Location'), path).toBe('/account')
    }
  })

  test('an owner with a card is sent from /login to /account', async () => {
    const { cookie } = await signIn((await createOwner({ cards: 1 })).email)
    expect((await server.get('/login', cookie)).headers.get('Location')).toBe('/account')
  })
})

describe('login form', () => {
  test('lands on /main without cards and /account with them, with a session cookie', async () => {
    expect((await signIn((await createOwner()).email)).location).toBe('/main')
    const withCard = await signIn((await createOwner({ cards: 2 })).email)
    expect(withCard.location).toBe('/account')
    const account = await server.get('/account', withCard.cookie)
    expect(account.status).toBe(200)
    const html = await account.text()
    expect(html).toContain('Coffee card 1')
    expect(html).toContain('Coffee card 2')
    expect(html).not.toContain('password_hash')
  })

  test('follows a same-site redirectTo and ignores another site', async () => {
    const { email } = await createOwner()
    expect((await signIn(email, { redirectTo: '/account/profile' })).location).toBe('/account/profile')
    expect((await signIn(email, { redirectTo: 'https://evil.example/x' })).location).toBe('/main')
    expect((await signIn(email, { redirectTo: '//evil.example/x' })).location).toBe('/main')
    const page = await (await server.get('/login?redirectTo=https%3A%2F%2Fevil.example')).text()
    expect(page).not.toMatch(/name="redirectTo"/)
    expect(await (await server.get('/login?redirectTo=%2Faccount')).text()).toMatch(
      /<input type="hidden" name="redirectTo" value="\/account"/,
    )
  })

  test('wrong password and unknown address get the same 401 answer', async () => {
    const { email } = await createOwner()
    for (const fields of [
      { email, password: 'Wrong.pass1' },
      { email: uniqueEmail('nobody'), password: PASSWORD },
    ]) {
      const response = await server.post('/login', fields)
      expect(response.status).toBe(401)
      const html = await response.text()
      expect(html).toContain('Invalid email or password')
      expect(html).not.toContain(fields.password)
    }
  })

  test('invalid input answers 400 with the field messages', async () => {
    const response = await server.post('/login', { email: 'not-an-email', password: '123' })
    expect(response.status).toBe(400)
    const html = await response.text()
    expect(html).toContain('Invalid email format')
    expect(html).toContain('Password must be 6 or more characters')
  })

  test('an unconfirmed account is offered a new confirmation link', async () => {
    const { email } = await createOwner({ confirmed: false })
    const response = await server.post('/login', { email, password: PASSWORD })
    expect(response.status).toBe(403)
    const html = await response.text()
    expect(html).toContain('Please confirm your email first')
    expect(html).toContain(`href="/verify-email?email=${encodeURIComponent(email)}"`)
  })

  test('answers 429 with its message after too many failures', async () => {
    const { email } = await createOwner()
    for (let i = 0; i < 5; i++)
      expect((await server.post('/login', { email, password: 'Wrong.pass1' })).status).toBe(401)
    const response = await server.post('/login', { email, password: PASSWORD })
    expect(response.status).toBe(429)
    expect(Number(response.headers.get('Retry-After'))).toBeGreaterThan(0)
    expect(await response.text()).toMatch(/Too many attempts\. Please try again in \d+ minutes\./)
  })

  test('with the show-password box ticked, a failed form comes back with the password as text, empty', async () => {
    const response = await server.post('/login', { email: 'x', password: 'secret-typed', showPassword: 'on' })
    const html = await response.text()
    expect(html).toMatch(/<input[^>]*name="password"[^>]*type="text"/)
    expect(html).toMatch(/<input type="checkbox" name="showPassword" checked=""/)
    expect(html).not.toContain('secret-typed')
  })
})

describe('sign-up form', () => {
  test('creates the account, mails the link and shows /verify-email', async () => {
    const email = uniqueEmail('new')
    const response = await server.post('/sign-up', { email, password: PASSWORD, confirmPassword: PASSWORD })
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(`/verify-email?email=${encodeURIComponent(email)}`)
    await latestLink(email, '/email-confirmed')
    const page = await (await server.get(response.headers.get('Location')!)).text()
    expect(page).toContain(email)
  })

  test('a taken address is an error on the e-mail field', async () => {
    const { email } = await createOwner()
    const response = await server.post('/sign-up', { email, password: PASSWORD, confirmPassword: PASSWORD })
    expect(response.status).toBe(400)
    expect(await response.text()).toMatch(
      /id="sign-up-form-email-error"[^>]*><p>An account with this email already exists/,
    )
  })

  test('a filled honeypot looks like success but creates nothing', async () => {
    const email = uniqueEmail('bot')
    const response = await server.post('/sign-up', {
      email,
      password: PASSWORD,
      confirmPassword: PASSWORD,
      website: 'spam',
    })
    expect(response.status).toBe(302)
    expect(await sql('select 1 from users where email = :email', { email })).toHaveLength(0)
  })
})

describe('confirmation and recovery', () => {
  test('/email-confirmed confirms once, says so again on a second visit, and works for a signed-in owner', async () => {
    const email = uniqueEmail('confirm')
    await server.post('/sign-up', { email, password: PASSWORD, confirmPassword: PASSWORD })
    const link = await latestLink(email, '/email-confirmed')
    const first = await server.get(link)
    expect(first.status).toBe(200)
    expect(await first.text()).toContain('successfully confirmed')
    const [row] = await sql<{ confirmed: boolean }>(
      'select email_confirmed_at is not null as confirmed from users where email = :email',
      { email },
    )
    expect(row!.confirmed).toBe(true)
    const { cookie } = await signIn(email)
    const again = await server.get(link, cookie)
    expect(again.status).toBe(200)
    expect(await again.text()).toContain('successfully confirmed')
  })

  test('/email-confirmed shows the server message for a bad link and the default text without one', async () => {
    const bad = await server.get('/email-confirmed?token=this-token-does-not-exist-anywhere')
    expect(bad.status).toBe(400)
    expect(await bad.text()).toContain('This link is invalid. Please request a new one.')
    const plain = await server.get('/email-confirmed')
    expect(plain.status).toBe(200)
    expect(await plain.text()).toContain('You&#x27;re all set to start exploring Stampwise')
  })

  test('resend redirects back with the 3-second toast', async () => {
    const email = uniqueEmail('resend')
    await server.post('/sign-up', { email, password: PASSWORD, confirmPassword: PASSWORD })
    const path = `/verify-email?email=${encodeURIComponent(email)}`
    const response = await server.post(path, { email })
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(path)
    const page = await (await server.get(path, cookieFrom(response, '__toast'))).text()
    expect(page).toContain('Email has been sent successfully')
    expect(page).toContain('3000')
    const [count] = await sql<{ n: number }>('select count(*)::int as n from mails where to_address = :email', {
      email,
    })
    expect(count!.n).toBe(2)
  })

  test('forgot password answers alike for known and unknown addresses; the link changes the password once', async () => {
    const { email } = await createOwner()
    for (const address of [email, uniqueEmail('nobody')]) {
      const response = await server.post('/forgot-password', { email: address })
      expect(response.headers.get('Location')).toBe('/reset-password-link')
    }
    const link = await latestLink(email, '/change-password')
    expect((await server.get(link)).status).toBe(200)
    const newPassword = 'Brand.new2'
    const changed = await server.post(link, {
      token: new URL(link, server.baseUrl).searchParams.get('token')!,
      password: newPassword,
      confirmPassword: newPassword,
    })
    expect(changed.headers.get('Location')).toBe('/password-updated')
    const used = await server.get(link)
    expect(used.status).toBe(400)
    const html = await used.text()
    expect(html).toContain('This link has already been used. Please request a new one.')
    expect(html).toContain('href="/forgot-password"')
    expect((await server.post('/login', { email, password: newPassword })).status).toBe(302)
  })

  test('a used token posted again shows its message under the password field', async () => {
    const { email } = await createOwner()
    await server.post('/forgot-password', { email })
    const token = new URL(await latestLink(email, '/change-password'), server.baseUrl).searchParams.get('token')!
    const fields = { token, password: 'Brand.new2', confirmPassword: 'Brand.new2' }
    expect((await server.post('/change-password', fields)).status).toBe(302)
    const again = await server.post('/change-password', fields)
    expect(again.status).toBe(400)
    expect(await again.text()).toMatch(
      /id="change-password-form-password-error"[^>]*><p>This link has already been used/,
    )
  })

  test('a pre-made owner chooses a password, then lands on the card prepared for them', async () => {
    const { email } = await createOwner({ premade: true, cards: 1 })
    const login = await server.post('/login', { email, password: PASSWORD })
    const location = login.headers.get('Location')!
    expect(location).toMatch(/^\/change-password\?token=[\w-]+$/)
    expect(await (await server.get(location)).text()).toContain('Choose your password')
    const token = new URL(location, server.baseUrl).searchParams.get('token')!
    const changed = await server.post('/change-password', {
      token,
      password: 'Own.pass3',
      confirmPassword: 'Own.pass3',
    })
    expect(changed.headers.get('Location')).toBe('/password-updated?premade=1')
    expect(await (await server.get('/password-updated?premade=1')).text()).toContain(
      'href="/login?redirectTo=%2Fpremaid_card"',
    )
  })
})

describe('logout', () => {
  test('GET shows a form and changes nothing; POST ends the session', async () => {
    const { cookie } = await signIn((await createOwner({ cards: 1 })).email)
    const form = await server.get('/logout', cookie)
    expect(form.status).toBe(200)
    expect(await form.text()).toMatch(/<form method="post" action="\/logout"/)
    expect((await server.get('/account', cookie)).status).toBe(200)

    const out = await server.post('/logout', {}, cookie)
    expect(out.status).toBe(302)
    expect(out.headers.get('Location')).toBe('/login')
    expect(out.headers.getSetCookie().some((line) => line.startsWith('__session=;'))).toBe(true)
    const after = await server.get('/account', cookie)
    expect(after.status).toBe(302)
    expect(after.headers.get('Location')).toBe('/login?redirectTo=%2Faccount')
  })

  test('/account and /main send a guest to /login', async () => {
    expect((await server.get('/main')).headers.get('Location')).toBe('/login?redirectTo=%2Fmain')
    expect((await server.get('/account')).headers.get('Location')).toBe('/login?redirectTo=%2Faccount')
  })
})

describe('/dev/mailbox', () => {
  test('lists stored mail newest first with clickable links', async () => {
    const email = uniqueEmail('mailbox')
    await server.post('/sign-up', { email, password: PASSWORD, confirmPassword: PASSWORD })
    await server.post('/forgot-password', { email })
    const html = await (await server.get('/dev/mailbox')).text()
    const confirm = html.indexOf('Confirm your e-mail for Stampwise')
    const reset = html.indexOf('Reset your Stampwise password')
    expect(reset).toBeGreaterThan(-1)
    expect(confirm).toBeGreaterThan(reset)
    expect(html).toMatch(/<a href="http:\/\/[^"]+\/change-password\?token=[\w-]+">/)
  })

  test('is a 404 in production', async () => {
    const build = (await import(pathToFileURL(path.resolve('build/server/index.js')).href)) as ServerBuild
    const app = createApp({ build, env: { ...getEnv(), NODE_ENV: 'production', isProduction: true } })
    const production = app.listen(0, '127.0.0.1')
    await new Promise<void>((resolve) => production.once('listening', () => resolve()))
    try {
      const { port } = production.address() as AddressInfo
      const response = await fetch(`http://127.0.0.1:${port}/dev/mailbox`)
      expect(response.status).toBe(404)
      expect(await response.text()).not.toContain('Confirm your e-mail for Stampwise')
    } finally {
      production.closeAllConnections()
      await new Promise((resolve) => production.close(resolve))
    }
  })
})
