import { describe, expect, test } from 'vitest'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * /account/{cardId}/edit over HTTP against the built app (issue 30, item 7): an owner edits a published card inside
 * the account, not in the onboarding wizard; a draft is still finished in the wizard.
 */
const server = useTestServer()

async function signedIn() {
  const user = await createOwner()
  return { ...user, cookie: await logIn(server, user.email) }
}

async function insertCard(userId: string, status: 'active' | 'draft' = 'active') {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, background_color, text_color, stamp_icon, reward, terms)
     values (:userId, :slug, :status, 'Coffee card', 'Corner Coffee', 8, '#1f3a5f', '#ffffff', 'coffee', 'A free coffee', 'One per visit')
     returning id`,
    { userId, status, slug: `edit-${Math.random().toString(36).slice(2, 10)}` },
  )
  return card!.id
}

const EDIT = {
  businessName: 'Corner Coffee',
  title: 'Espresso club',
  stampsRequired: '10',
  backgroundColor: '#1f3a5f',
  textColor: '#ffffff',
  stampIcon: 'star',
  reward: 'A free espresso',
  terms: 'One per visit',
}

describe('an owner edits a published card', () => {
  test('the card page links to the edit page in the account; saving changes design and reward and goes back', async () => {
    const owner = await signedIn()
    const cardId = await insertCard(owner.id)
    const cardPage = await (await server.get(`/account/${cardId}`, owner.cookie)).text()
    expect(cardPage).toContain(`href="/account/${cardId}/edit"`)
    expect(cardPage).not.toContain(`/main?cardId=${cardId}`)

    const form = await server.get(`/account/${cardId}/edit`, owner.cookie)
    expect(form.status).toBe(200)
    const html = await pageText(form)
    expect(html).toContain('Edit “Coffee card”')
    expect(html).toContain('value="A free coffee"')
    // In the account chrome, not the wizard's.
    expect(html).not.toContain('Step 1 of')

    const saved = await server.post(`/account/${cardId}/edit`, EDIT, owner.cookie)
    expect(saved.status).toBe(302)
    expect(saved.headers.get('Location')).toBe(`/account/${cardId}`)
    const [row] = await sql<Record<string, unknown>>(
      `select title, stamps_required, stamp_icon, reward, status from cards where id = :cardId`,
      { cardId },
    )
    expect(row).toEqual({
      title: 'Espresso club',
      stamps_required: 10,
      stamp_icon: 'star',
      reward: 'A free espresso',
      status: 'active',
    })
    // An owner's own edit is not an admin's: nothing in the audit log.
    expect(await sql(`select 1 from audit_log where target_id = :cardId`, { cardId })).toEqual([])
  })

  test('invalid input is a 400 with the field’s message and changes nothing; another owner’s card is a 404', async () => {
    const owner = await signedIn()
    const cardId = await insertCard(owner.id)
    const invalid = await server.post(
      `/account/${cardId}/edit`,
      { ...EDIT, reward: ' ', stampsRequired: '99' },
      owner.cookie,
    )
    expect(invalid.status).toBe(400)
    const html = await invalid.text()
    expect(html).toMatch(/reward/i)
    const [row] = await sql<{ reward: string }>(`select reward from cards where id = :cardId`, { cardId })
    expect(row!.reward).toBe('A free coffee')

    const stranger = await signedIn()
    expect((await server.get(`/account/${cardId}/edit`, stranger.cookie)).status).toBe(404)
    expect((await server.post(`/account/${cardId}/edit`, EDIT, stranger.cookie)).status).toBe(404)
  })

  test('a draft is finished in the wizard: its card page links there', async () => {
    const owner = await signedIn()
    const cardId = await insertCard(owner.id, 'draft')
    const cardPage = await (await server.get(`/account/${cardId}`, owner.cookie)).text()
    expect(cardPage).toContain(`href="/main?cardId=${cardId}"`)
    expect(cardPage).toContain('Finish the setup')
  })
})
