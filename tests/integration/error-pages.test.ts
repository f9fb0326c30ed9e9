import crypto from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * The one error boundary (app/components/error-boundary.tsx): an error inside an /account, /admin or onboarding page
 * shows inside that layout's chrome, with the site's texts, status and title; a refusal by the layout itself (not
 * an admin) still shows the root's page, without the chrome.
 */
const server = useTestServer()

const ROOT_TITLE = '<title>Stampwise — loyalty stamp cards for small businesses</title>'
const NOT_FOUND = "We can't find that page"

async function signedIn({ admin = false } = {}) {
  const user = await createOwner()
  if (admin) await sql(`update users set role = 'admin' where id = :id`, { id: user.id })
  return { ...user, cookie: await logIn(server, user.email) }
}

async function page(pathname: string, cookie: string) {
  const response = await server.get(pathname, cookie)
  return { status: response.status, html: await pageText(response) }
}

const mains = (html: string) => html.match(/<main\b/g)?.length ?? 0

describe('an error inside a layout keeps its chrome', () => {
  test('an unknown or malformed card in /account: the 404 page inside the account chrome', async () => {
    const owner = await signedIn()
    for (const pathname of [
      `/account/${crypto.randomUUID()}`,
      '/account/not-a-card/poster',
      `/account/${crypto.randomUUID()}/scan`,
    ]) {
      const { status, html } = await page(pathname, owner.cookie)
      expect(status, pathname).toBe(404)
      expect(html, pathname).toContain('class="account-shell"')
      expect(html, pathname).toContain(NOT_FOUND)
      expect(html, pathname).toContain(ROOT_TITLE)
      // One main landmark: the layout's, holding the error screen.
      expect(mains(html), pathname).toBe(1)
    }
  })

  test('an unknown card in /admin: the 404 page inside the admin chrome, with the title it had', async () => {
    const admin = await signedIn({ admin: true })
    const owner = await createOwner()
    const { status, html } = await page(`/admin/users/${owner.id}/cards/${crypto.randomUUID()}/edit`, admin.cookie)
    expect(status).toBe(404)
    expect(html).toContain('class="admin-shell"')
    expect(html).toContain(NOT_FOUND)
    expect(html).toContain(ROOT_TITLE)
    expect(mains(html)).toBe(1)
  })

  test('an unknown user in /admin keeps its own words inside the admin chrome', async () => {
    const admin = await signedIn({ admin: true })
    const { status, html } = await page(`/admin/users/${crypto.randomUUID()}`, admin.cookie)
    expect(status).toBe(404)
    expect(html).toContain('class="admin-shell"')
    expect(html).toContain('<h1>No such user</h1>')
  })

  test('an unknown card in an onboarding step: the 404 page under the onboarding bar', async () => {
    const owner = await signedIn()
    for (const pathname of [`/card_reward?cardId=${crypto.randomUUID()}`, `/main?cardId=${crypto.randomUUID()}`]) {
      const { status, html } = await page(pathname, owner.cookie)
      expect(status, pathname).toBe(404)
      expect(html, pathname).toContain('class="onboarding-shell"')
      expect(html, pathname).toContain(NOT_FOUND)
      expect(mains(html), pathname).toBe(1)
    }
  })

  test('an owner on /admin: the 403 page as before, without the admin chrome', async () => {
    const owner = await signedIn()
    const { status, html } = await page('/admin', owner.cookie)
    expect(status).toBe(403)
    expect(html).toContain("You can't open this page")
    expect(html).not.toContain('class="admin-shell"')
    expect(html).toContain(ROOT_TITLE)
    expect(mains(html)).toBe(1)
  })
})
