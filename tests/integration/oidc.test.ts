import { exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from 'jose'
import { QueryTypes } from 'sequelize'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { readToast } from '#app/server/toast.server.ts'
import { startTrial } from '#models/subscription.server.ts'
import { createUser } from '#models/user.server.ts'
import { signWithAnotherKey, startOidcProvider, type OidcProvider } from '#tests/support/oidc-provider.ts'
import { startTestServer } from '#tests/support/test-server.ts'

const GOOGLE_CLIENT_ID = 'stampwise-test.apps.googleusercontent.com'
const APPLE = { clientId: 'com.stampwise.test', teamId: 'TEAM123456', keyId: 'KEY7654321' }

let server: Awaited<ReturnType<typeof startTestServer>>
let google: OidcProvider
let apple: OidcProvider
let applePublicKey: CryptoKey

beforeAll(async () => {
  google = await startOidcProvider()
  apple = await startOidcProvider({ emailVerifiedAs: 'string' })
  const keys = await generateKeyPair('ES256', { extractable: true })
  applePublicKey = keys.publicKey
  Object.assign(process.env, {
    GOOGLE_CLIENT_ID,
    GOOGLE_CLIENT_SECRET: 'google-test-secret',
    GOOGLE_ISSUER: google.issuer,
    APPLE_CLIENT_ID: APPLE.clientId,
    APPLE_TEAM_ID: APPLE.teamId,
    APPLE_KEY_ID: APPLE.keyId,
    // As many environment files hold it: one line, with literal \n between the PEM's lines.
    APPLE_PRIVATE_KEY: (await exportPKCS8(keys.privateKey)).replace(/\n/g, '\\n'),
    APPLE_ISSUER: apple.issuer,
  })
  // The test's own modules read the environment again; the built app reads it on its first request.
  resetEnvForTests()
  server = await startTestServer()
})

afterAll(async () => {
  await server?.close()
  await google?.stop()
  await apple?.stop()
})

/** A browser's cookies: what the app set, sent back on the next request. */
class CookieJar {
  private cookies = new Map<string, string>()
  store(response: Response) {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';')
      const name = pair.slice(0, pair.indexOf('='))
      const value = pair.slice(pair.indexOf('=') + 1)
      if (!value || /max-age=0/i.test(cookie)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
  get header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
  has(name: string) {
    return this.cookies.has(name)
  }
}

/** Opens a start address and lets the provider answer: returns the provider's authorize URL and its callback. */
async function startSignIn(jar: CookieJar, path: string) {
  const start = await server.fetch(path, { headers: { Cookie: jar.header } })
  expect(start.status).toBe(302)
  jar.store(start)
  const authorizeUrl = new URL(start.headers.get('Location')!)
  const authorize = await fetch(authorizeUrl, { redirect: 'manual' })
  expect(authorize.status).toBe(302)
  return { authorizeUrl, callback: new URL(authorize.headers.get('Location')!) }
}

async function googleCallback(jar: CookieJar, callback: URL) {
  const response = await server.fetch(`${callback.pathname}${callback.search}`, { headers: { Cookie: jar.header } })
  jar.store(response)
  return response
}

async function signInWithGoogle(jar = new CookieJar(), path = '/login_google') {
  const { callback } = await startSignIn(jar, path)
  return { jar, response: await googleCallback(jar, callback) }
}

async function toastMessage(response: Response) {
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('__toast='))
  if (!cookie) return null
  const { toast } = await readToast(new Request('http://test/', { headers: { Cookie: cookie.split(';')[0]! } }))
  return toast?.message ?? null
}

async function expectRefused(response: Response, message: string | RegExp) {
  expect(response.status).toBe(302)
  expect(new URL(response.headers.get('Location')!, 'http://test').pathname).toBe('/login')
  expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('__session='))).toBe(false)
  expect(await toastMessage(response)).toMatch(message)
}

async function accountPage(jar: CookieJar) {
  const response = await server.fetch('/account', { headers: { Cookie: jar.header } })
  return { status: response.status, html: await response.text() }
}

async function userRow(email: string) {
  const [row] = await getSequelize().query<{
    id: string
    email_confirmed_at: Date | null
    password_hash: string | null
    google_subject: string | null
    apple_subject: string | null
    status: string | null
  }>(
    `select u.id, u.email_confirmed_at, u.password_hash, u.google_subject, u.apple_subject, s.status
     from users u left join subscriptions s on s.user_id = u.id where u.email = :email`,
    { replacements: { email }, type: QueryTypes.SELECT },
  )
  return row
}

async function createPasswordUser(email: string, { confirmed }: { confirmed: boolean }) {
  return getSequelize().transaction(async (transaction) => {
    const user = await createUser(
      { email, passwordHash: 'scrypt$not-a-real-hash', emailConfirmedAt: confirmed ? new Date() : null },
      transaction,
    )
    await startTrial(user.id, transaction)
    return user
  })
}

let counter = 0
const uniqueEmail = (name: string) => `${name}-${Date.now()}-${counter++}@example.com`

describe('Google sign-in', () => {
  test('a new person is sent to Google with PKCE, state and nonce, and comes back signed in to a new trial account', async () => {
    const email = uniqueEmail('new-google')
    google.setIdentity({ sub: `google-${email}`, email, email_verified: true })
    const jar = new CookieJar()
    const { authorizeUrl, callback } = await startSignIn(jar, '/login_google')

    expect(authorizeUrl.origin).toBe(google.issuer)
    const params = authorizeUrl.searchParams
    expect(params.get('client_id')).toBe(GOOGLE_CLIENT_ID)
    expect(params.get('response_type')).toBe('code')
    expect(params.get('scope')).toBe('openid email')
    expect(params.get('code_challenge_method')).toBe('S256')
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(params.get('state')).toMatch(/^[\w-]{20,}$/)
    expect(params.get('nonce')).toMatch(/^[\w-]{40,}$/)
    expect(new URL(params.get('redirect_uri')!).pathname).toBe('/auth_google')

    const response = await googleCallback(jar, callback)
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe('/main')
    const page = await accountPage(jar)
    expect(page.status).toBe(200)
    expect(page.html).toContain(email)

    const user = await userRow(email)
    expect(user).toMatchObject({ google_subject: `google-${email}`, password_hash: null, status: 'trial' })
    expect(user?.email_confirmed_at).toBeInstanceOf(Date)
    const tokenRequest = google.tokenRequests.at(-1)!
    expect(tokenRequest).toMatchObject({
      grant_type: 'authorization_code',
      client_id: GOOGLE_CLIENT_ID,
      client_secret: 'google-test-secret',
    })
    expect(tokenRequest.code_verifier).toMatch(/^[\w-]{43,128}$/)
  })

  test('signing in again finds the same account, and returns to the page asked for', async () => {
    const email = uniqueEmail('again-google')
    google.setIdentity({ sub: `google-${email}`, email, email_verified: true })
    await signInWithGoogle()
    const first = await userRow(email)

    // The provider's subject, not the e-mail, names the account: a changed address still finds it.
    google.setIdentity({ sub: `google-${email}`, email: uniqueEmail('renamed'), email_verified: true })
    const { jar, response } = await signInWithGoogle(
      new CookieJar(),
      '/login_google?redirectTo=%2Faccount%2Fprofile%3Ftab%3Dlogo',
    )
    expect(response.headers.get('Location')).toBe('/account/profile?tab=logo')
    expect((await accountPage(jar)).html).toContain(email)
    const linked = await getSequelize().query(`select id from users where google_subject = :sub`, {
      replacements: { sub: `google-${email}` },
      type: QueryTypes.SELECT,
    })
    expect(linked).toHaveLength(1)
    expect((await userRow(email))?.id).toBe(first?.id)
  })

  test('asked to return to /account, an owner with no card lands on /main', async () => {
    const email = uniqueEmail('no-card')
    google.setIdentity({ sub: `google-${email}`, email, email_verified: true })
    const { response } = await signInWithGoogle(new CookieJar(), '/login_google?redirectTo=%2Faccount')
    expect(response.headers.get('Location')).toBe('/main')
  })

  test('a redirectTo to another site is ignored', async () => {
    const email = uniqueEmail('offsite')
    google.setIdentity({ sub: `google-${email}`, email, email_verified: true })
    const { response } = await signInWithGoogle(new CookieJar(), '/login_google?redirectTo=%2F%2Fevil.example%2F')
    expect(response.headers.get('Location')).toBe('/main')
  })

  test('links to an existing confirmed password account with the same e-mail, which lands on /account with its cards', async () => {
    const email = uniqueEmail('linked')
    const existing = await createPasswordUser(email, { confirmed: true })
    await getSequelize().query(`insert into cards (user_id, slug, title) values (:id, :slug, 'Coffee')`, {
      replacements: { id: existing.id, slug: `card-${counter++}-${Date.now()}` },
    })
    google.setIdentity({ sub: `google-${email}`, email: email.toUpperCase(), email_verified: true })
    const { jar, response } = await signInWithGoogle()
    expect(response.headers.get('Location')).toBe('/account')
    expect((await accountPage(jar)).html).toContain(email)
    expect(await userRow(email)).toMatchObject({
      id: existing.id,
      google_subject: `google-${email}`,
      password_hash: 'scrypt$not-a-real-hash',
    })
  })

  test('an existing account whose e-mail is not confirmed is refused, and stays unlinked', async () => {
    const email = uniqueEmail('unconfirmed')
    await createPasswordUser(email, { confirmed: false })
    google.setIdentity({ sub: `google-${email}`, email, email_verified: true })
    const { response } = await signInWithGoogle()
    await expectRefused(response, /confirm it first.*or sign in with your password/)
    expect((await userRow(email))?.google_subject).toBeNull()
  })

  test('an e-mail Google has not verified neither links nor creates an account', async () => {
    const email = uniqueEmail('unverified')
    await createPasswordUser(email, { confirmed: true })
    google.setIdentity({ sub: `google-${email}`, email, email_verified: false })
    await expectRefused(
      (await signInWithGoogle()).response,
      "Google has not verified your e-mail address, so we can't sign you in with it. Please use your e-mail and password.",
    )
    expect((await userRow(email))?.google_subject).toBeNull()

    const fresh = uniqueEmail('unverified-new')
    google.setIdentity({ sub: `google-${fresh}`, email: fresh })
    await expectRefused((await signInWithGoogle()).response, /has not verified your e-mail/)
    expect(await userRow(fresh)).toBeUndefined()
  })

  test('a disabled account is refused', async () => {
    const email = uniqueEmail('disabled')
    google.setIdentity({ sub: `google-${email}`, email, email_verified: true })
    await signInWithGoogle()
    await getSequelize().query(`update users set disabled_at = now() where email = :email`, { replacements: { email } })
    await expectRefused((await signInWithGoogle()).response, 'This account has been disabled. Please contact support.')
  })
})

describe('Google callback checks', () => {
  test('a callback without state, or with a state we never issued, is refused', async () => {
    await expectRefused(
      await server.fetch('/auth_google?code=abc'),
      'This sign-in with Google is not valid. Please try again.',
    )
    await expectRefused(await server.fetch('/auth_google'), /not valid/)
    await expectRefused(await server.fetch('/auth_google?code=abc&state=made-up-state-value'), /no longer valid/)
  })

  test('a state is used once: replaying the callback is refused', async () => {
    const email = uniqueEmail('replay')
    google.setIdentity({ sub: `google-${email}`, email, email_verified: true })
    const jar = new CookieJar()
    const { callback } = await startSignIn(jar, '/login_google')
    expect((await googleCallback(jar, callback)).status).toBe(302)
    await expectRefused(await googleCallback(jar, callback), /no longer valid \(it may have been used already\)/)
  })

  test('an expired state is refused', async () => {
    const jar = new CookieJar()
    const { callback } = await startSignIn(jar, '/login_google')
    await getSequelize().query(`update oauth_states set expires_at = now() - interval '1 minute'`)
    await expectRefused(
      await googleCallback(jar, callback),
      'Your sign-in with Google took too long. Please try again.',
    )
  })

  test('a callback opened in another browser than the one that started the sign-in is refused', async () => {
    const { callback } = await startSignIn(new CookieJar(), '/login_google')
    await expectRefused(await googleCallback(new CookieJar(), callback), /started in another browser/)
  })

  test('the person cancelling at Google comes back to /login with a message', async () => {
    const jar = new CookieJar()
    const { authorizeUrl } = await startSignIn(jar, '/login_google')
    const state = authorizeUrl.searchParams.get('state')!
    const response = await server.fetch(`/auth_google?${new URLSearchParams({ error: 'access_denied', state })}`, {
      headers: { Cookie: jar.header },
    })
    await expectRefused(response, 'Sign-in with Google was cancelled.')
  })

  test.each([
    ['a wrong nonce', (claims: Record<string, unknown>) => void (claims.nonce = 'not-the-nonce-we-sent')],
    ['no nonce', (claims: Record<string, unknown>) => void delete claims.nonce],
    [
      'another audience',
      (claims: Record<string, unknown>) => void (claims.aud = 'someone-else.apps.googleusercontent.com'),
    ],
    ['another issuer', (claims: Record<string, unknown>) => void (claims.iss = 'https://issuer.example')],
    [
      'an expired token',
      (claims: Record<string, unknown>) => {
        const now = Math.floor(Date.now() / 1000)
        Object.assign(claims, { iat: now - 7200, nbf: now - 7200, exp: now - 3600 })
      },
    ],
  ])('an ID token with %s is refused', async (_name, change) => {
    const email = uniqueEmail('bad-token')
    google.setIdentity({ sub: `google-${email}`, email, email_verified: true })
    google.changeNextIdToken(change)
    await expectRefused((await signInWithGoogle()).response, "We couldn't sign you in with Google. Please try again.")
    expect(await userRow(email)).toBeUndefined()
  })

  test('an ID token signed by a key the provider never published is refused', async () => {
    const email = uniqueEmail('forged')
    google.setIdentity({ sub: `google-${email}`, email, email_verified: true })
    google.changeNextTokenResponse((response) => {
      response.body.id_token = signWithAnotherKey(response.body.id_token as string)
    })
    await expectRefused((await signInWithGoogle()).response, /couldn't sign you in with Google/)
    expect(await userRow(email)).toBeUndefined()
  })

  test('a failed token exchange is refused', async () => {
    google.changeNextTokenResponse((response) => {
      response.statusCode = 400
      response.body = { error: 'invalid_grant' }
    })
    await expectRefused((await signInWithGoogle()).response, /couldn't sign you in with Google/)
  })
})

/** Apple's form POST to /auth_apple from its own site, from a browser whose cookies are in `jar`. */
async function applePost(jar: CookieJar, fields: Record<string, string>) {
  const response = await server.fetch('/auth_apple', {
    method: 'POST',
    headers: { Origin: apple.issuer, 'Content-Type': 'application/x-www-form-urlencoded', Cookie: jar.header },
    body: new URLSearchParams(fields),
  })
  jar.store(response)
  return response
}

const codeAndState = (callback: URL) => ({
  code: callback.searchParams.get('code')!,
  state: callback.searchParams.get('state')!,
})

describe('Sign in with Apple', () => {
  test("Apple's cross-site form POST, bringing back only the browser's binding cookie, signs a new person in", async () => {
    const email = uniqueEmail('apple')
    apple.setIdentity({ sub: `apple-${email}`, email, email_verified: 'true' })
    const browser = new CookieJar()
    const { authorizeUrl, callback } = await startSignIn(browser, '/login_apple')
    // APP_URL is http here: the Lax cookie (on https, a __Host- cookie with SameSite=None; Secure: unit-tested).
    expect(browser.has('__oidc_browser')).toBe(true)
    const params = authorizeUrl.searchParams
    expect(params.get('response_mode')).toBe('form_post')
    expect(params.get('scope')).toBe('name email')
    expect(params.get('client_id')).toBe(APPLE.clientId)
    expect(params.get('code_challenge_method')).toBe('S256')
    expect(params.get('nonce')).toBeTruthy()

    const response = await applePost(browser, {
      ...codeAndState(callback),
      user: JSON.stringify({ name: { firstName: 'Ada', lastName: 'Owner' }, email }),
    })
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe('/main')
    const jar = new CookieJar()
    jar.store(response)
    expect((await accountPage(jar)).html).toContain(email)
    expect(await userRow(email)).toMatchObject({
      apple_subject: `apple-${email}`,
      google_subject: null,
      status: 'trial',
    })

    // The client secret: an ES256 JWT from the team's key, about our client, for Apple's issuer.
    const secret = apple.tokenRequests.at(-1)!.client_secret!
    const { protectedHeader } = await jwtVerify(secret, applePublicKey, {
      algorithms: ['ES256'],
      issuer: APPLE.teamId,
      subject: APPLE.clientId,
      audience: apple.issuer,
    })
    expect(protectedHeader.kid).toBe(APPLE.keyId)
  })

  test('Apple reporting an error (the person cancelled) lands on /login with a message', async () => {
    const browser = new CookieJar()
    const { authorizeUrl } = await startSignIn(browser, '/login_apple')
    const response = await applePost(browser, {
      error: 'user_cancelled_authorize',
      state: authorizeUrl.searchParams.get('state')!,
    })
    await expectRefused(response, 'Sign-in with Apple was cancelled.')
  })

  test("a stranger's unused state and code, posted from another browser, are refused and used up", async () => {
    const email = uniqueEmail('apple-stranger')
    apple.setIdentity({ sub: `apple-${email}`, email, email_verified: 'true' })
    const stranger = new CookieJar()
    const { callback } = await startSignIn(stranger, '/login_apple')

    // The victim's browser posts them (a page of the stranger's submits the form): it has no binding cookie.
    const victim = new CookieJar()
    const refused = await applePost(victim, codeAndState(callback))
    await expectRefused(refused, 'This sign-in with Apple was started in another browser. Please try again here.')
    expect(victim.has('__session')).toBe(false)
    expect(await userRow(email)).toBeUndefined()
    expect(apple.tokenRequests.some((request) => request.code === callback.searchParams.get('code'))).toBe(false)

    // The state is used up: not even the browser that started it can finish now.
    await expectRefused(await applePost(stranger, codeAndState(callback)), /no longer valid/)
  })

  test('a browser with its own binding cookie cannot finish another browser’s sign-in either', async () => {
    const email = uniqueEmail('apple-other')
    apple.setIdentity({ sub: `apple-${email}`, email, email_verified: 'true' })
    const { callback } = await startSignIn(new CookieJar(), '/login_apple')
    const victim = new CookieJar()
    await startSignIn(victim, '/login_apple') // the victim once began a sign-in of their own
    expect(victim.has('__oidc_browser')).toBe(true)
    await expectRefused(await applePost(victim, codeAndState(callback)), /started in another browser/)
    expect(await userRow(email)).toBeUndefined()
  })

  test('a GET, or a POST that is not a form, is answered with a redirect and a message', async () => {
    await expectRefused(await server.fetch('/auth_apple'), 'This sign-in with Apple is not valid. Please try again.')
    const response = await server.fetch('/auth_apple', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"state": 1',
    })
    await expectRefused(response, /not valid/)
  })

  test('a Google state is no good at the Apple callback', async () => {
    const { callback } = await startSignIn(new CookieJar(), '/login_google')
    const response = await server.fetch('/auth_apple', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        code: callback.searchParams.get('code')!,
        state: callback.searchParams.get('state')!,
      }),
    })
    await expectRefused(response, /no longer valid/)
  })
})
