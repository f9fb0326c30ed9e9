import { describe, expect, test } from 'vitest'
import { getEnv } from '#app/server/env.server.ts'
import { createUser, logIn, sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * Issue 14, item 2: `redirectTo=/\t/evil.example` passed the old check (it starts with one slash); browsers drop the
 * tab and follow `//evil.example`, so a JavaScript-on login landed on another site. Every redirectTo now goes
 * through one helper (safe-redirect.server.ts): login with and without JavaScript, and the notifications page here.
 */
const server = useTestServer()

/** An owner with a card, so a login without a usable redirectTo lands on /account. */
async function ownerWithCard() {
  const user = await createUser()
  await sql(
    `insert into cards (user_id, slug, title, business_name) values (:id, :slug, 'Coffee card', 'Corner Coffee')`,
    {
      id: user.id,
      slug: `card-${user.id.slice(0, 8)}`,
    },
  )
  return user
}

const HOSTILE = [
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '/ /evil.example',
  '/\\evil.example',
  '/\\/evil.example',
  '//evil.example',
  '/.//evil.example',
  'https://evil.example/account',
  'javascript:alert(1)',
]

/** Where a browser goes with this Location, from the login page. */
const followed = (location: string | null) =>
  new URL((location ?? '').replace(/[\t\n\r]/g, ''), `${getEnv().APP_URL}/login`)

const loginBody = (user: { email: string; password: string }, redirectTo: string) =>
  new URLSearchParams({ email: user.email, password: user.password, redirectTo }).toString()
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' }

describe('login sends a hostile redirectTo to /account, never off-site', () => {
  test.for(HOSTILE)('without JavaScript (a form post): %j', async (redirectTo) => {
    const user = await ownerWithCard()
    const response = await server.fetch('/login', { method: 'POST', headers: FORM, body: loginBody(user, redirectTo) })
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe('/account')
    expect(followed(response.headers.get('Location')).origin).toBe(new URL(getEnv().APP_URL).origin)
  })

  test.for(HOSTILE)('with JavaScript (the ?_data= request): %j', async (redirectTo) => {
    const user = await ownerWithCard()
    const response = await server.fetch('/login?_data=routes%2F_auth%2B%2Flogin', {
      method: 'POST',
      headers: FORM,
      body: loginBody(user, redirectTo),
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('X-Remix-Redirect')).toBe('/account')
  })

  test('the login page does not carry a hostile redirectTo into its form', async () => {
    const html = await (await server.fetch(`/login?${new URLSearchParams({ redirectTo: '/\t/evil.example' })}`)).text()
    expect(html).not.toContain('name="redirectTo"')
  })

  test('one of our own pages is kept, with its query', async () => {
    const user = await ownerWithCard()
    const response = await server.fetch('/login', {
      method: 'POST',
      headers: FORM,
      body: loginBody(user, '/account/profile?tab=logo'),
    })
    expect(response.headers.get('Location')).toBe('/account/profile?tab=logo')
  })
})

test('the notifications page sends a hostile redirectTo back to its own list', async () => {
  const user = await ownerWithCard()
  await sql(
    `insert into subscriptions (user_id, status, trial_ends_at) values (:id, 'trial', now() + interval '14 days')`,
    { id: user.id },
  )
  const cookie = await logIn(server, user.email)
  const response = await server.fetch('/account/notifications', {
    method: 'POST',
    headers: { ...FORM, Cookie: cookie },
    body: new URLSearchParams({ intent: 'mark-all-read', redirectTo: '/\t/evil.example' }).toString(),
  })
  expect(response.status).toBe(303)
  expect(response.headers.get('Location')).toMatch(/^\/account\/notifications/)
})
