import sharp from 'sharp'
import { describe, expect, test } from 'vitest'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/** /admin/users/{userId}/cards/{cardId}/edit over HTTP against the built app: an admin edits an owner's card. */
const server = useTestServer()

async function signedIn({ admin = false } = {}) {
  const user = await createOwner()
  if (admin) await sql(`update users set role = 'admin' where id = :id`, { id: user.id })
  return { ...user, cookie: await logIn(server, user.email) }
}

async function insertCard(userId: string) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, background_color, text_color, stamp_icon, reward, terms)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 8, '#1f3a5f', '#ffffff', 'coffee', 'A free coffee', 'One per visit')
     returning id`,
    { userId, slug: `corner-${Math.random().toString(36).slice(2, 10)}` },
  )
  return card!.id
}

const cardRow = async (cardId: string) =>
  (
    await sql<Record<string, unknown>>(
      `select title, business_name, stamps_required, background_color, text_color, stamp_icon, reward, terms, status, logo_content_type
       from cards where id = :cardId`,
      { cardId },
    )
  )[0]!

const auditRows = (cardId: string) =>
  sql<{ actor_id: string; action: string; target_type: string; before: unknown; after: unknown }>(
    `select actor_id, action, target_type, before, after from audit_log where target_id = :cardId order by id`,
    { cardId },
  )

const EDIT = {
  businessName: 'Corner Coffee',
  title: 'Espresso club',
  stampsRequired: '10',
  backgroundColor: '#FFEEDD',
  textColor: '#222222',
  stampIcon: 'star',
  reward: 'A free espresso',
  terms: 'One per visit',
}

describe('an admin edits a card', () => {
  test('with the owner’s form and preview; design and reward change, the owner sees it, the audit log has before and after', async () => {
    const admin = await signedIn({ admin: true })
    const owner = await signedIn()
    const cardId = await insertCard(owner.id)
    const path = `/admin/users/${owner.id}/cards/${cardId}/edit`

    const page = await server.get(path, admin.cookie)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('value="Corner Coffee"')
    expect(html).toContain('value="A free coffee"')
    expect(html).toContain('type="color"')
    expect(html).toContain('name="logo"')
    // The preview, rendered on the server from the saved card.
    expect(html).toMatch(/class="card-preview[^"]*" style="background-color:#1f3a5f;color:#ffffff"/)

    const saved = await server.post(path, EDIT, admin.cookie)
    expect(saved.status).toBe(302)
    expect(saved.headers.get('Location')).toBe(`/admin/users/${owner.id}`)
    expect(saved.headers.getSetCookie().some((line) => line.startsWith('__toast='))).toBe(true)
    expect(await cardRow(cardId)).toMatchObject({
      title: 'Espresso club',
      business_name: 'Corner Coffee',
      stamps_required: 10,
      background_color: '#ffeedd',
      text_color: '#222222',
      stamp_icon: 'star',
      reward: 'A free espresso',
      terms: 'One per visit',
      status: 'active',
    })

    const ownerPage = await (await server.get(`/account/${cardId}`, owner.cookie)).text()
    expect(ownerPage).toContain('Espresso club')
    expect(ownerPage).toMatch(/A free espresso/)
    expect(ownerPage).toContain('background-color:#ffeedd')

    // Only the fields that changed, before and after.
    expect(await auditRows(cardId)).toEqual([
      {
        actor_id: admin.id,
        action: 'card.edit',
        target_type: 'card',
        before: {
          title: 'Coffee card',
          stampsRequired: 8,
          backgroundColor: '#1f3a5f',
          textColor: '#ffffff',
          stampIcon: 'coffee',
          reward: 'A free coffee',
        },
        after: {
          title: 'Espresso club',
          stampsRequired: 10,
          backgroundColor: '#ffeedd',
          textColor: '#222222',
          stampIcon: 'star',
          reward: 'A free espresso',
        },
      },
    ])

    // Saving the same values again changes nothing and writes nothing.
    expect((await server.post(path, EDIT, admin.cookie)).status).toBe(302)
    expect(await auditRows(cardId)).toHaveLength(1)
  })

  test('a logo upload (checked by its content) and its removal, with their fingerprints in the audit log', async () => {
    const admin = await signedIn({ admin: true })
    const owner = await signedIn()
    const cardId = await insertCard(owner.id)
    const path = `/admin/users/${owner.id}/cards/${cardId}/edit`
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#c0392b' } })
      .png()
      .toBuffer()
    const form = new FormData()
    for (const [name, value] of Object.entries(EDIT)) form.set(name, value)
    form.set('logo', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'logo.png')
    const uploaded = await server.fetch(path, { method: 'POST', headers: { Cookie: admin.cookie }, body: form })
    expect(uploaded.status).toBe(302)
    expect((await cardRow(cardId)).logo_content_type).toBe('image/webp')
    expect(await (await server.get(path, admin.cookie)).text()).toContain('src="data:image/webp;base64,')

    const removed = await server.post(path, { ...EDIT, removeLogo: 'on' }, admin.cookie)
    expect(removed.status).toBe(302)
    expect((await cardRow(cardId)).logo_content_type).toBeNull()
    const [upload, removal] = (await auditRows(cardId)).slice(-2)
    expect(upload!.before).toMatchObject({ logo: null })
    expect(upload!.after).toMatchObject({
      logo: { contentType: 'image/webp', md5: expect.stringMatching(/^[0-9a-f]{32}$/) },
    })
    expect(removal).toMatchObject({
      before: { logo: (upload!.after as { logo: unknown }).logo },
      after: { logo: null },
    })

    const notAnImage = new FormData()
    for (const [name, value] of Object.entries(EDIT)) notAnImage.set(name, value)
    notAnImage.set('logo', new Blob(['not an image'], { type: 'image/png' }), 'logo.png')
    const refused = await server.fetch(path, { method: 'POST', headers: { Cookie: admin.cookie }, body: notAnImage })
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain('Upload a PNG, JPEG or WebP image')
  })

  test('invalid input answers 400 with the fields’ messages and changes nothing', async () => {
    const admin = await signedIn({ admin: true })
    const owner = await signedIn()
    const cardId = await insertCard(owner.id)
    const before = await cardRow(cardId)
    const response = await server.post(
      `/admin/users/${owner.id}/cards/${cardId}/edit`,
      {
        ...EDIT,
        businessName: ' ',
        stampsRequired: '21',
        backgroundColor: 'red',
        stampIcon: 'dragon',
        reward: '',
        terms: 'x'.repeat(601),
      },
      admin.cookie,
    )
    expect(response.status).toBe(400)
    const html = await response.text()
    for (const message of [
      'Enter your business name',
      'Choose how many stamps are needed, from 1 to 20',
      'Choose a colour in the form #rrggbb',
      'Choose one of the stamp icons',
      'Describe the reward',
      'The terms must be 600 characters or fewer',
    ]) {
      expect(html).toContain(message)
    }
    // The values come back in the form; the preview stays the saved card's.
    expect(html).toContain('value="Espresso club"')
    expect(await cardRow(cardId)).toEqual(before)
    expect(await auditRows(cardId)).toEqual([])
  })

  test('a card of another user under this user’s address, or an unknown id, is a 404', async () => {
    const admin = await signedIn({ admin: true })
    const owner = await createOwner()
    const other = await createOwner()
    const foreign = await insertCard(other.id)
    const before = await cardRow(foreign)
    for (const path of [
      `/admin/users/${owner.id}/cards/${foreign}/edit`,
      `/admin/users/${owner.id}/cards/not-a-uuid/edit`,
      `/admin/users/not-a-uuid/cards/${foreign}/edit`,
    ]) {
      expect((await server.get(path, admin.cookie)).status, `GET ${path}`).toBe(404)
      expect((await server.post(path, EDIT, admin.cookie)).status, `POST ${path}`).toBe(404)
    }
    expect(await cardRow(foreign)).toEqual(before)
    expect(await auditRows(foreign)).toEqual([])
  })

  test('an owner gets 403 (even for their own card), a guest is sent to /login', async () => {
    const owner = await signedIn()
    const cardId = await insertCard(owner.id)
    const before = await cardRow(cardId)
    const path = `/admin/users/${owner.id}/cards/${cardId}/edit`
    expect((await server.get(path, owner.cookie)).status).toBe(403)
    expect((await server.post(path, EDIT, owner.cookie)).status).toBe(403)
    for (const response of [await server.get(path), await server.post(path, EDIT)]) {
      expect(response.status).toBe(302)
      expect(response.headers.get('Location')).toMatch(/^\/login\?redirectTo=/)
    }
    expect(await cardRow(cardId)).toEqual(before)
  })
})
