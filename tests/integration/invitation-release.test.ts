import { beforeEach, describe, expect, test } from 'vitest'
import { findOrCreateSocialAccount } from '#app/services/auth/social-account.server.ts'
import { JOIN_MESSAGES } from '#app/services/team/invitation.server.ts'
import { PLAIN_NAME_MESSAGE } from '#app/utils/plain-name.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { expectAnswer, postJson, sql, STRONG_PASSWORD, uniqueEmail } from '#tests/support/auth-api.ts'
import { createCard } from '#tests/support/authorization-fixture.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * An invitation holds an address only while it is pending, and only as an invitation (issue 30, item 12;
 * docs/product/hardening.md, "Invitations"): the person who owns the address can make their own account,
 * decline from the mail, and an expired or declined invitation blocks nothing. Names in the mail are plain and
 * quoted (item 14).
 */
const server = useTestServer()

beforeEach(async () => {
  await sql('delete from rate_limit_counters')
})

const GOOGLE = { name: 'google', label: 'Google' } as const
const signUpForm = (email: string, extra: Record<string, string> = {}) => ({
  email,
  password: STRONG_PASSWORD,
  confirmPassword: STRONG_PASSWORD,
  ...extra,
})

/** An owner with a card of 'Corner Coffee' who invited Ivy at a new address, through the team page. */
async function invited() {
  const owner = await signedInOwner(server)
  await createCard(owner.id, 'inv')
  const email = uniqueEmail('invitee')
  const answer = await server.post('/account/team', { intent: 'invite', name: 'Ivy', email }, owner.cookie)
  expect(answer.status).toBeLessThan(400)
  const [mail] = await sql<{ subject: string; text_body: string; html_body: string }>(
    `select subject, text_body, html_body from mails where to_address = :email order by created_at desc limit 1`,
    { email },
  )
  const token = /\/join-team\?token=([\w-]+)/.exec(mail!.text_body)![1]!
  return { owner, email, token, mail: mail! }
}

const staffRows = (email: string) =>
  sql<{ removed: boolean }>(
    `select removed_at is not null as removed from users where email = :email and role = 'staff'`,
    {
      email,
    },
  )
const ownerAccount = (email: string) =>
  sql<{ id: string }>(`select id from users where email = :email and role = 'owner' and removed_at is null`, { email })
const notices = (ownerId: string) =>
  sql<{ message: string }>(`select message from notices where user_id = :ownerId and kind = 'team_invitation'`, {
    ownerId,
  })
const expire = (email: string) =>
  sql(`update users set invitation_expires_at = now() - interval '1 minute' where email = :email and role = 'staff'`, {
    email,
  })

describe('sign-up with an invited address', () => {
  test('says who invited them and offers to accept; ticked, it withdraws the invitation and makes the account', async () => {
    const { owner, email, token } = await invited()
    const first = await server.post('/sign-up', signUpForm(email))
    expect(first.status).toBe(409)
    const page = await pageText(first)
    expect(page).toContain('Corner Coffee invited this address to their team on Stampwise')
    expect(page).toContain('Create my own account instead (withdraws the invitation from Corner Coffee)')
    expect(await staffRows(email)).toEqual([{ removed: false }])

    const second = await server.post('/sign-up', signUpForm(email, { withdrawInvitation: 'on' }))
    expect(second.status).toBe(302)
    expect(second.headers.get('location')).toContain('/verify-email')
    expect(await staffRows(email)).toEqual([{ removed: true }])
    expect(await ownerAccount(email)).toHaveLength(1)
    expect(await notices(owner.id)).toEqual([
      { message: 'Ivy made their own Stampwise account with the invited address, so your invitation was withdrawn.' },
    ])
    // The link is dead, and the seat is free again.
    expect(await pageText(await server.get(`/join-team?token=${token}`))).toContain(JOIN_MESSAGES.withdrawn)
    expect(await pageText(await server.get('/account/team', owner.cookie))).toContain('0 of 2 staff seats taken')
  })

  test('the JSON call answers 409 with the message, and withdrawInvitation: true goes on', async () => {
    const { email } = await invited()
    const refused = await postJson(server, '/api/auth/signup', signUpForm(email))
    expect(refused.status).toBe(409)
    expect(((await refused.json()) as { message: string }).message).toContain('Corner Coffee invited this address')
    await expectAnswer(
      await postJson(server, '/api/auth/signup', { ...signUpForm(email), withdrawInvitation: true }),
      201,
      {
        status: 'success',
      },
    )
    expect(await ownerAccount(email)).toHaveLength(1)
  })

  test('an expired invitation holds nothing: sign-up, then reset, work as for anyone', async () => {
    const { email } = await invited()
    await expire(email)
    const signedUp = await server.post('/sign-up', signUpForm(email))
    expect(signedUp.status).toBe(302)
    expect(await staffRows(email)).toEqual([{ removed: true }])
    const [owner] = await ownerAccount(email)
    expect(owner).toBeDefined()
    expect((await server.post('/forgot-password', { email })).status).toBeLessThan(400)
    const [reset] = await sql(
      `select 1 from one_time_tokens where user_id = :id and kind = 'password_reset' and used_at is null`,
      { id: owner!.id },
    )
    expect(reset).toBeDefined()
  })
})

describe('Google and Apple sign-in of an invited address', () => {
  test('pending: refused with both ways, accepting or declining', async () => {
    const { email } = await invited()
    await expect(
      findOrCreateSocialAccount(GOOGLE, { sub: `g-${email}`, email, email_verified: true }),
    ).rejects.toMatchObject({
      userMessage: expect.stringContaining("decline it from that e-mail ('Not you? Decline')"),
    })
  })

  test('expired: an owner account is made, the invitation released', async () => {
    const { email } = await invited()
    await expire(email)
    const made = await findOrCreateSocialAccount(GOOGLE, { sub: `g-${email}`, email, email_verified: true })
    expect(made.created).toBe(true)
    expect(await ownerAccount(email)).toEqual([{ id: made.userId }])
  })

  test('declined: Apple sign-in makes an owner account', async () => {
    const { email, token } = await invited()
    expect((await server.post('/decline-invitation', { token })).status).toBe(302)
    const made = await findOrCreateSocialAccount(
      { name: 'apple', label: 'Apple' },
      { sub: `a-${email}`, email, email_verified: true },
    )
    expect(made.created).toBe(true)
  })
})

describe('Not you? Decline', () => {
  test('the mail links to it; the page asks once, the post declines, the owner is told, the address is free', async () => {
    const { owner, email, token, mail } = await invited()
    expect(mail.text_body).toContain(`Not you? Decline: `)
    expect(mail.text_body).toContain(`/decline-invitation?token=${token}`)
    expect(mail.html_body).toContain(`/decline-invitation?token=${token}`)

    const page = await server.get(`/decline-invitation?token=${token}`)
    expect(page.status).toBe(200)
    expect(await pageText(page)).toContain('Corner Coffee invited this e-mail address to their team on Stampwise.')
    expect(await staffRows(email)).toEqual([{ removed: false }])

    const declined = await server.post(`/decline-invitation?token=${token}`, { token })
    expect(declined.status).toBe(302)
    expect(declined.headers.get('location')).toBe('/decline-invitation?declined')
    expect(await pageText(await server.get('/decline-invitation?declined'))).toContain('You declined the invitation.')
    expect(await staffRows(email)).toEqual([{ removed: true }])
    expect(await notices(owner.id)).toEqual([{ message: 'Ivy declined your invitation to your team.' }])

    // Once only; the join link is dead; sign-up needs no second step.
    const again = await server.post('/decline-invitation', { token })
    expect(again.status).toBe(400)
    expect(await pageText(await server.get(`/join-team?token=${token}`))).toContain(JOIN_MESSAGES.withdrawn)
    expect((await server.post('/sign-up', signUpForm(email))).status).toBe(302)
  })

  test('a link that was accepted cannot decline', async () => {
    const { email, token } = await invited()
    const joined = await server.post('/join-team', {
      token,
      password: STRONG_PASSWORD,
      confirmPassword: STRONG_PASSWORD,
    })
    expect(joined.status).toBe(302)
    const refused = await server.post('/decline-invitation', { token })
    expect(refused.status).toBe(400)
    expect(await staffRows(email)).toEqual([{ removed: false }])
  })

  test('without a token, or with a made-up one, the page says the link does not work', async () => {
    expect((await server.get('/decline-invitation')).status).toBe(400)
    const made = await server.get('/decline-invitation?token=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')
    expect(made.status).toBe(400)
    expect(await pageText(made)).toContain(JOIN_MESSAGES.unknown)
  })
})

describe('another owner inviting an address', () => {
  test('an expired invitation of another business does not block it', async () => {
    const { email } = await invited()
    await expire(email)
    const other = await signedInOwner(server)
    const answer = await server.post('/account/team', { intent: 'invite', name: 'Ivy', email }, other.cookie)
    expect(answer.status).toBeLessThan(400)
    expect(await pageText(await server.get('/account/team', other.cookie))).toContain(email)
  })
})

describe('names in the invitation mail (item 14)', () => {
  test('the invite form refuses a name that is a link or an address', async () => {
    const owner = await signedInOwner(server)
    for (const name of ['https://evil.example/pay', 'boss@evil.com', 'visit evil.com now', '<b>Boss</b>']) {
      const answer = await server.post(
        '/account/team',
        { intent: 'invite', name, email: uniqueEmail('x') },
        owner.cookie,
      )
      expect(answer.status, name).toBe(400)
      expect(await pageText(answer), name).toContain(PLAIN_NAME_MESSAGE)
    }
  })

  test('a business name saved with a link is quoted as plain data in the subject and heading', async () => {
    const owner = await signedInOwner(server)
    const card = await createCard(owner.id, 'hostile')
    await sql(`update cards set business_name = 'Win at https://evil.example <b>now</b>' where id = :id`, {
      id: card.id,
    })
    const email = uniqueEmail('invitee')
    expect(
      (await server.post('/account/team', { intent: 'invite', name: 'Ivy', email }, owner.cookie)).status,
    ).toBeLessThan(400)
    const [mail] = await sql<{ subject: string; text_body: string; html_body: string }>(
      `select subject, text_body, html_body from mails where to_address = :email`,
      { email },
    )
    expect(mail!.subject).toBe(
      "Invitation from 'Win at https evil example b now b' to stamp loyalty cards on Stampwise",
    )
    expect(mail!.text_body).toContain("An invitation for 'Ivy' from 'Win at https evil example b now b'")
    expect(mail!.text_body).not.toContain('evil.example')
    expect(mail!.html_body).not.toContain('evil.example')
  })
})
