import crypto from 'node:crypto'
import { expect, request as playwrightRequest, type Cookie } from '@playwright/test'
import { createCard, createOwner, sql, type TestOwner } from './e2e-database.ts'
import { createLocation, createStaffMember } from './e2e-staff.ts'
import { e2eMailPorts, type ReceivedMail } from './smtp-peer.ts'

/**
 * What a walk over every page needs, made once per Playwright worker: an owner with a card (a holder's pass on it,
 * a draft message, a sent one, an own template, a notice), an admin, the session cookies of both, and a password
 * reset token (read from the mail, since the database keeps only its hash).
 */
export type PageRecords = {
  owner: TestOwner
  admin: TestOwner
  card: string
  slug: string
  pass: string
  draft: string
  template: string
  resetToken: string
  ownerCookies: Cookie[]
  adminCookies: Cookie[]
  /** A staff member of the owner (issue 20), at two of the owner's locations, so the counter shows its choices. */
  staffCookies: Cookie[]
}

const SHORT_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const shortCode = () => Array.from(crypto.randomBytes(8), (byte) => SHORT_CODE_ALPHABET[byte % 32]).join('')

async function sessionCookies(baseURL: string, user: TestOwner): Promise<Cookie[]> {
  const context = await playwrightRequest.newContext({ baseURL })
  const response = await context.post('/login', {
    form: { email: user.email, password: user.password },
    maxRedirects: 0,
  })
  expect(response.status(), `sign-in of ${user.email}`).toBeLessThan(400)
  const { cookies } = await context.storageState()
  await context.dispose()
  return cookies
}

async function passwordResetToken(baseURL: string, email: string): Promise<string> {
  const context = await playwrightRequest.newContext({ baseURL })
  const asked = await context.post('/forgot-password', { form: { email }, maxRedirects: 0 })
  expect(asked.status(), 'the reset link is asked for').toBeLessThan(400)
  const mailUrl = `http://127.0.0.1:${e2eMailPorts().http}/messages?${new URLSearchParams({ to: email })}`
  let token: string | undefined
  await expect
    .poll(
      async () => {
        const mails = (await (await context.get(mailUrl)).json()) as ReceivedMail[]
        token = mails.map((mail) => /\/change-password\?token=([\w-]+)/.exec(mail.text)?.[1]).find(Boolean)
        return token
      },
      { message: `a reset mail to ${email}`, timeout: 15_000 },
    )
    .toBeTruthy()
  await context.dispose()
  return token!
}

export async function createPageRecords(baseURL: string): Promise<PageRecords> {
  const owner = await createOwner('a11y-owner')
  const admin = await createOwner('a11y-admin')
  await sql(`update users set role = 'admin' where id = $1`, [admin.id])
  const card = await createCard(owner.id, { title: 'Coffee card', businessName: 'Corner Coffee' })
  // Made by an admin, as a pre-made account's card is: /premaid_card shows it (an owner's own card goes to /account).
  await sql(`update cards set premade = true where id = $1`, [card.id])
  // The card asks every holder detail at joining (issue 34): the walk shows the join page's optional fields and the
  // holder's details page.
  await sql(`update cards set holder_details = $2::jsonb where id = $1`, [
    card.id,
    JSON.stringify({
      fields: ['name', 'email', 'phone', 'birthday'],
      when: 'joining',
      afterStamps: 2,
      privacyNote: 'We keep these only to find your card again. Ask us at the counter to erase them.',
      phoneCountry: 'FR',
    }),
  ])
  const [pass] = await sql<{ id: string }>(`insert into passes (card_id, short_code) values ($1, $2) returning id`, [
    card.id,
    shortCode(),
  ])
  const [draft] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, title, body) values ($1, $2, 'Happy hour', 'Two coffees for one until 6 pm') returning id`,
    [card.id, owner.id],
  )
  // A sent message, so the history page has a row to show.
  await sql(
    `insert into notifications (card_id, user_id, title, body, status, queued_at, finished_at)
     values ($1, $2, 'New pastries', 'Fresh croissants every morning', 'done', now(), now())`,
    [card.id, owner.id],
  )
  const [template] = await sql<{ id: string }>(
    `insert into templates (user_id, title, body) values ($1, 'Rainy day', 'A free cookie with every coffee today') returning id`,
    [owner.id],
  )
  const locations = [await createLocation(owner.id, 'Main Street'), await createLocation(owner.id, 'Harbour')]
  const staff = await createStaffMember(owner.id, { locationIds: locations.map((location) => location.id) })
  const [ownerCookies, adminCookies, staffCookies, resetToken] = await Promise.all([
    sessionCookies(baseURL, owner),
    sessionCookies(baseURL, admin),
    sessionCookies(baseURL, staff),
    passwordResetToken(baseURL, (await createOwner('a11y-reset')).email),
  ])
  return {
    owner,
    admin,
    card: card.id,
    slug: card.slug,
    pass: pass!.id,
    draft: draft!.id,
    template: template!.id,
    resetToken,
    ownerCookies,
    adminCookies,
    staffCookies,
  }
}
