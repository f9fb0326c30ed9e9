import { afterAll, beforeAll, expect, test } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { readToast } from '#app/server/toast.server.ts'
import { socialSignInView } from '#app/services/auth/oidc-config.server.ts'
import { startTestServer } from '#tests/support/test-server.ts'

// Its own file: the built app reads the environment once, and oidc.test.ts configures both providers.
let server: Awaited<ReturnType<typeof startTestServer>>
beforeAll(async () => {
  for (const name of Object.keys(process.env)) if (/^(GOOGLE|APPLE)_/.test(name)) delete process.env[name]
  resetEnvForTests()
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

async function expectNotSetUp(response: Response, provider: string) {
  expect(response.status).toBe(302)
  expect(response.headers.get('Location')).toBe('/login')
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('__toast='))!
  const { toast } = await readToast(new Request('http://test/', { headers: { Cookie: cookie.split(';')[0]! } }))
  expect(toast).toMatchObject({
    type: 'error',
    message: `Sign-in with ${provider} is not available here yet: use your e-mail and password.`,
  })
}

test('a provider that is not configured sends the person back to /login with the explanation', async () => {
  await expectNotSetUp(await server.fetch('/login_google'), 'Google')
  await expectNotSetUp(await server.fetch('/auth_google?code=abc&state=xyz'), 'Google')
  await expectNotSetUp(await server.fetch('/login_apple'), 'Apple')
  await expectNotSetUp(
    await server.fetch('/auth_apple', { method: 'POST', body: new URLSearchParams({ code: 'abc', state: 'xyz' }) }),
    'Apple',
  )
})

test('the sign-in pages keep both buttons and say quietly, in a person’s words, that the way is not there', async () => {
  for (const page of ['/login', '/sign-up']) {
    const body = (await (await server.fetch(page)).text()).replaceAll('<!-- -->', '')
    expect(body).toContain('Login with Apple')
    expect(body).toContain('Login with Google')
    expect(body).toContain('Sign-in with Apple or Google is not available here yet: use your e-mail and password.')
    expect(body).not.toContain('not set up on this server')
    // Outside production the operator trying the app learns what turns them on.
    expect(body).toContain('GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET')
  }
})

test('in production the settings are not named to visitors', () => {
  const before = { NODE_ENV: process.env.NODE_ENV, SESSION_SECRET: process.env.SESSION_SECRET }
  try {
    process.env.NODE_ENV = 'production'
    process.env.SESSION_SECRET ??= 'a-production-secret-of-enough-length-0123456789'
    resetEnvForTests()
    expect(socialSignInView()).toEqual({ providers: { google: false, apple: false }, setupNote: null })
  } finally {
    process.env.NODE_ENV = before.NODE_ENV
    if (before.SESSION_SECRET === undefined) delete process.env.SESSION_SECRET
    resetEnvForTests()
  }
})
