import { afterAll, beforeAll, expect, test } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { readToast } from '#app/server/toast.server.ts'
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
    message: `Sign-in with ${provider} is not set up on this server yet. Please use your e-mail and password.`,
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
