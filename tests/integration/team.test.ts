import { describe, expect, test } from 'vitest'
import { STAFF_SUSPENDED } from '#app/services/auth/auth.server.ts'
import { applyDueTransitions, cancelPlan, choosePlan, confirmPayment } from '#app/services/billing/billing.server.ts'
import { runPlanHousekeeping } from '#app/services/billing/plan-housekeeping.server.ts'
import { JOIN_MESSAGES } from '#app/services/team/invitation.server.ts'
import { TEAM_MESSAGES } from '#app/utils/staff.ts'
import { createOwner, signedInOwner } from '#tests/support/account-owner.ts'
import { createUser, logIn, sessionCookie, sql, STRONG_PASSWORD, uniqueEmail } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { createStaffMember, signedInStaffMember } from '#tests/support/staff-member.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * The team (issue 20; docs/product/staff-locations-rules.md): an invitation from /account/team to the
 * invitee signed in on /staff, seats per plan with pending invitations and their expiry, addresses that already have
 * an account, resend, removal ending sessions at once, and a downgrade suspending the newest (an upgrade or a
 * removal restoring them, an end changing nothing). Landing on /staff is its redirect (the page is another part's).
 */
const server = useTestServer()
const DAY = 24 * 60 * 60 * 1000

const invite = (cookie: string, name: string, email: string) =>
  server.post('/account/team', { intent: 'invite', name, email }, cookie)
const memberAction = (cookie: string, intent: 'resend' | 'remove', staffId: string) =>
  server.post('/account/team', { intent, staffId }, cookie)

/** Whether a session cookie is live: a guest-only page sends the signed-in elsewhere and shows a guest the form. */
async function sessionLive(cookie: string) {
  const response = await server.get('/login', cookie)
  if (response.status === 200) return false
  expect(response.status).toBe(302)
  return true
}

async function staffRow(email: string) {
  const [row] = await sql<{
    id: string
    role: string
    employer_id: string
    staff_name: string
    has_password: boolean
    confirmed: boolean
    invitation_expires_at: Date | null
    suspended_at: Date | null
    removed_at: Date | null
  }>(
    `select id, role, employer_id, staff_name, password_hash is not null as has_password,
            email_confirmed_at is not null as confirmed, invitation_expires_at, suspended_at, removed_at
     from users where email = :email order by created_at desc limit 1`,
    { email },
  )
  return row!
}

async function invitationLink(email: string) {
  const [mail] = await sql<{ text_body: string; subject: string }>(
    `select text_body, subject from mails where to_address = :email order by created_at desc, id desc limit 1`,
    { email },
  )
  expect(mail, `a mail to ${email}`).toBeDefined()
  const link = /https?:\/\/\S+(\/join-team\?token=[\w-]+)/.exec(mail!.text_body)
  expect(link, 'a /join-team link in the mail').not.toBeNull()
  return { path: link![1]!, token: new URL(link![0]).searchParams.get('token')!, mail: mail! }
}

/** Pending invitations made directly (cheap: no password to hash), the oldest first, one second apart. */
async function pendingInvitations(ownerId: string, count: number, expiresInMs = 7 * DAY) {
  await sql(
    `insert into users (email, role, employer_id, staff_name, invitation_expires_at, created_at)
     select 'pending-' || gen_random_uuid() || '@example.com', 'staff', :ownerId, 'Pending ' || n,
            now() + make_interval(secs => :seconds), now() - make_interval(secs => 1000 - n)
     from generate_series(1, :count) n`,
    { ownerId, count, seconds: expiresInMs / 1000 },
  )
}

/** Puts the owner on a paid plan through the billing service (the owner's choice, then the admin's confirmation). */
async function payFor(ownerId: string, tier: 1 | 2 | 3) {
  const invoice = await choosePlan({ userId: ownerId, tier, periodMonths: 1 })
  await confirmPayment({ invoiceId: invoice.id, actorId: null })
}

describe('inviting a team member', () => {
  test('the invitation mail’s link sets a password, signs the member in and lands on /staff', async () => {
    const owner = await signedInOwner(server)
    await sql(
      `insert into cards (user_id, slug, status, title, business_name, reward, stamps_required)
       values (:id, :slug, 'active', 'Coffee card', 'Corner Coffee', 'A free coffee', 8)`,
      { id: owner.id, slug: `team-${owner.id.slice(0, 8)}` },
    )
    const email = uniqueEmail('barista')
    const sent = await invite(owner.cookie, 'Anna', `  ${email.toUpperCase()} `)
    expect(sent.status).toBe(302)
    expect(sent.headers.get('Location')).toBe('/account/team')

    const row = await staffRow(email)
    expect(row).toMatchObject({ role: 'staff', employer_id: owner.id, staff_name: 'Anna', has_password: false })
    expect(Math.abs(new Date(row.invitation_expires_at!).getTime() - Date.now() - 7 * DAY)).toBeLessThan(60_000)
    const [token] = await sql<{ expires_at: Date }>(
      `select expires_at from one_time_tokens where user_id = :id and kind = 'staff_invitation' and used_at is null`,
      { id: row.id },
    )
    expect(Math.abs(new Date(token!.expires_at).getTime() - Date.now() - 7 * DAY)).toBeLessThan(60_000)

    const list = await pageText(await server.get('/account/team', owner.cookie))
    expect(list).toContain('Anna')
    expect(list).toContain(email)
    expect(list).toMatch(/Invited<\/span> until <time/)
    expect(list).toContain('1 of 2 staff seats taken')

    const link = await invitationLink(email)
    expect(link.mail.subject).toBe("Invitation from 'Corner Coffee' to stamp loyalty cards on Stampwise")
    const page = await server.get(link.path)
    expect(page.status).toBe(200)
    expect(await pageText(page)).toContain('Anna, Corner Coffee invited you to stamp their loyalty cards')

    // The sign-up policy, with its messages; nothing used up.
    const weak = await server.post('/join-team', {
      token: link.token,
      password: 'weakpass',
      confirmPassword: 'weakpass',
    })
    expect(weak.status).toBe(400)
    expect(await pageText(weak)).toContain('At least one uppercase letter')
    expect((await staffRow(email)).has_password).toBe(false)

    const joined = await server.post('/join-team', {
      token: link.token,
      password: STRONG_PASSWORD,
      confirmPassword: STRONG_PASSWORD,
    })
    expect(joined.status).toBe(302)
    expect(joined.headers.get('Location')).toBe('/staff')
    const cookie = sessionCookie(joined)
    expect((await server.get('/login', cookie)).headers.get('Location')).toBe('/staff')
    expect(await staffRow(email)).toMatchObject({ has_password: true, confirmed: true, invitation_expires_at: null })

    // The link works once; the member signs in at /login and lands on /staff.
    const again = await server.get(link.path)
    expect(again.status).toBe(400)
    expect(await pageText(again)).toContain(JOIN_MESSAGES.used)
    const login = await server.post('/login', { email, password: STRONG_PASSWORD })
    expect(login.status).toBe(302)
    expect(login.headers.get('Location')).toBe('/staff')
    expect(await pageText(await server.get('/account/team', owner.cookie))).toMatch(/>Active</)
    // Staff get 404 on the owner's team page, like any owner page.
    expect((await server.get('/account/team', cookie)).status).toBe(404)
  })

  test('bad input: each field’s message and 400; a member id that is not the owner’s: 404', async () => {
    const owner = await signedInOwner(server)
    const noName = await invite(owner.cookie, '   ', uniqueEmail())
    expect(noName.status).toBe(400)
    expect(await pageText(noName)).toContain(TEAM_MESSAGES.name)
    const badEmail = await invite(owner.cookie, 'Anna', 'not-an-address')
    expect(badEmail.status).toBe(400)
    expect(await pageText(badEmail)).toContain(TEAM_MESSAGES.email)
    expect((await invite(owner.cookie, 'A'.repeat(61), uniqueEmail())).status).toBe(400)
    expect((await server.post('/account/team', { intent: 'nonsense' }, owner.cookie)).status).toBe(400)
    expect((await memberAction(owner.cookie, 'remove', 'not-a-uuid')).status).toBe(400)

    const other = await createOwner()
    const theirs = await createStaffMember(other.id)
    const foreign = await memberAction(owner.cookie, 'remove', theirs.id)
    expect(foreign.status).toBe(404)
    expect(await pageText(foreign)).toContain(TEAM_MESSAGES.memberGone)
    expect((await memberAction(owner.cookie, 'resend', theirs.id)).status).toBe(404)
    expect((await staffRow(theirs.email)).removed_at).toBeNull()
    expect((await sql(`select 1 from users where employer_id = :id`, { id: owner.id })).length).toBe(0)
  })

  test('an address with an account is refused (one account, one role); an own pending invitation says resend', async () => {
    const owner = await signedInOwner(server)
    const someone = await createUser()
    const taken = await invite(owner.cookie, 'Bob', someone.email)
    expect(taken.status).toBe(400)
    expect(await pageText(taken)).toContain(TEAM_MESSAGES.hasAccount)
    const self = await invite(owner.cookie, 'Me', owner.email)
    expect(await pageText(self)).toContain(TEAM_MESSAGES.hasAccount)

    const other = await createOwner()
    const theirs = await createStaffMember(other.id)
    // Another business's staff member: the same answer, so nothing about other businesses leaks.
    const theirsAnswer = await pageText(await invite(owner.cookie, 'Cleo', theirs.email))
    expect(theirsAnswer).toContain(TEAM_MESSAGES.hasAccount)
    expect(theirsAnswer).not.toMatch(/another business/i)

    const email = uniqueEmail('pending')
    expect((await invite(owner.cookie, 'Dan', email)).status).toBe(302)
    const twice = await invite(owner.cookie, 'Dan', email)
    expect(twice.status).toBe(400)
    expect(await pageText(twice)).toContain(TEAM_MESSAGES.ownInvitation)
    expect((await sql(`select 1 from users where email = :email`, { email })).length).toBe(1)
  })
})

describe('seats', () => {
  test('trial: 2 seats, pending invitations hold one, an expired one frees it; the refusal shows the upgrade path', async () => {
    const owner = await signedInOwner(server)
    expect((await invite(owner.cookie, 'One', uniqueEmail())).status).toBe(302)
    await createStaffMember(owner.id, { name: 'Two' })
    const third = uniqueEmail()
    const refused = await invite(owner.cookie, 'Three', third)
    expect(refused.status).toBe(409)
    const text = await pageText(refused)
    expect(text).toContain(TEAM_MESSAGES.seats(2))
    expect(text).toContain('href="/account/tariffs"')
    expect((await sql(`select 1 from users where email = :email`, { email: third })).length).toBe(0)

    // The pending invitation runs out: its seat is free again.
    await sql(
      `update users set invitation_expires_at = now() - interval '1 second'
       where employer_id = :id and password_hash is null`,
      { id: owner.id },
    )
    expect(await pageText(await server.get('/account/team', owner.cookie))).toContain('Invitation expired')
    expect((await invite(owner.cookie, 'Three', third)).status).toBe(302)
  })

  test.each([
    [1, 2],
    [2, 5],
    [3, 20],
  ] as const)('paid plan tier %i: %i seats', async (tier, seats) => {
    const owner = await signedInOwner(server)
    await payFor(owner.id, tier)
    expect(await pageText(await server.get('/account/team', owner.cookie))).toContain(`0 of ${seats} staff seats taken`)
    await pendingInvitations(owner.id, seats - 1)
    expect((await invite(owner.cookie, 'Last', uniqueEmail())).status).toBe(302)
    const over = await invite(owner.cookie, 'Over', uniqueEmail())
    expect(over.status).toBe(409)
    expect(await pageText(over)).toContain(TEAM_MESSAGES.seats(seats))
  })
})

describe('resend', () => {
  test('a new link and 7 more days; the old link stops; an expired one needs a free seat', async () => {
    const owner = await signedInOwner(server)
    const email = uniqueEmail('resend')
    await invite(owner.cookie, 'Eve', email)
    const first = await invitationLink(email)
    const { id } = await staffRow(email)
    await sql(`update users set invitation_expires_at = now() + interval '1 day' where id = :id`, { id })

    const resent = await memberAction(owner.cookie, 'resend', id)
    expect(resent.status).toBe(302)
    const second = await invitationLink(email)
    expect(second.token).not.toBe(first.token)
    expect((await server.get(first.path)).status).toBe(400)
    expect((await server.get(second.path)).status).toBe(200)
    const expires = new Date((await staffRow(email)).invitation_expires_at!).getTime()
    expect(Math.abs(expires - Date.now() - 7 * DAY)).toBeLessThan(60_000)

    // Expired, and both seats taken meanwhile: refused with the upgrade path; with a seat free again: sent.
    await sql(`update users set invitation_expires_at = now() - interval '1 minute' where id = :id`, { id })
    await sql(`update one_time_tokens set expires_at = now() - interval '1 minute' where user_id = :id`, { id })
    expect(await pageText(await server.get(second.path))).toContain(JOIN_MESSAGES.expired)
    const a = await createStaffMember(owner.id)
    await createStaffMember(owner.id)
    const full = await memberAction(owner.cookie, 'resend', id)
    expect(full.status).toBe(409)
    expect(await pageText(full)).toContain(TEAM_MESSAGES.seats(2))
    expect((await memberAction(owner.cookie, 'remove', a.id)).status).toBe(302)
    expect((await memberAction(owner.cookie, 'resend', id)).status).toBe(302)
    expect((await server.get((await invitationLink(email)).path)).status).toBe(200)

    // A member who joined has nothing to resend.
    const joined = await createStaffMember(owner.id)
    expect((await memberAction(owner.cookie, 'resend', joined.id)).status).toBe(409)
  })
})

describe('removal', () => {
  test('ends the member’s sessions at once, revokes the link, frees the address and the seat', async () => {
    const owner = await signedInOwner(server)
    const member = await signedInStaffMember(server, owner.id)
    const secondDevice = await logIn(server, member.email)
    expect(await sessionLive(member.cookie)).toBe(true)

    const removed = await memberAction(owner.cookie, 'remove', member.id)
    expect(removed.status).toBe(302)
    expect(await sessionLive(member.cookie)).toBe(false)
    expect(await sessionLive(secondDevice)).toBe(false)
    expect((await sql(`select 1 from sessions where user_id = :id`, { id: member.id })).length).toBe(0)
    expect((await staffRow(member.email)).removed_at).not.toBeNull()
    // Signing in again fails like a wrong password; the list no longer shows them.
    const login = await server.post('/login', { email: member.email, password: member.password })
    expect(login.status).toBe(401)
    expect(await pageText(await server.get('/account/team', owner.cookie))).not.toContain(member.email)
    // Removing twice: not on the team any more.
    expect((await memberAction(owner.cookie, 'remove', member.id)).status).toBe(404)

    // A pending invitation removed: its link stops; the address can be invited again.
    const email = uniqueEmail('withdrawn')
    await invite(owner.cookie, 'Finn', email)
    const link = await invitationLink(email)
    expect((await memberAction(owner.cookie, 'remove', (await staffRow(email)).id)).status).toBe(302)
    const withdrawn = await server.get(link.path)
    expect(withdrawn.status).toBe(400)
    expect(await pageText(withdrawn)).toContain(JOIN_MESSAGES.withdrawn)
    expect((await invite(owner.cookie, 'Finn', email)).status).toBe(302)
    expect((await invite(owner.cookie, 'Back', member.email)).status).toBe(302)
  })
})

describe('plan changes', () => {
  test('a downgrade suspends the newest beyond the seats; a removal or an upgrade restores; an end changes nothing', async () => {
    const owner = await signedInOwner(server)
    await payFor(owner.id, 2) // Standard: 5 seats
    const members = []
    for (const name of ['S1', 'S2', 'S3', 'S4']) {
      const member = await signedInStaffMember(server, owner.id)
      await sql(
        `update users set staff_name = :name, created_at = now() - make_interval(secs => :age) where id = :id`,
        {
          name,
          age: 100 - members.length,
          id: member.id,
        },
      )
      members.push(member)
    }
    const [s1, s2, s3, s4] = members as [(typeof members)[number], ...typeof members]
    const suspended = async () =>
      (
        await sql<{ staff_name: string }>(
          `select staff_name from users where employer_id = :id and suspended_at is not null order by staff_name`,
          { id: owner.id },
        )
      ).map((row) => row.staff_name)

    // Down to Basic (2 seats): S3 and S4, the newest, are suspended, their sessions ended, their sign-in refused.
    await payFor(owner.id, 1)
    expect(await suspended()).toEqual(['S3', 'S4'])
    expect(await sessionLive(s1.cookie)).toBe(true)
    expect(await sessionLive(s2!.cookie)).toBe(true)
    expect(await sessionLive(s3!.cookie)).toBe(false)
    expect((await sql(`select 1 from sessions where user_id = :id`, { id: s4!.id })).length).toBe(0)
    const refused = await server.post('/login', { email: s4!.email, password: STRONG_PASSWORD })
    expect(refused.status).toBe(401)
    expect(await pageText(refused)).toContain(STAFF_SUSPENDED)
    const list = await pageText(await server.get('/account/team', owner.cookie))
    expect(list.match(/>Suspended</g)).toHaveLength(2)
    expect(list).toContain('4 of 2 staff seats taken')
    // No new invitation while over the seats.
    expect((await invite(owner.cookie, 'New', uniqueEmail())).status).toBe(409)

    // The owner removes S1: S3 gets the seat back (the oldest first).
    expect((await memberAction(owner.cookie, 'remove', s1.id)).status).toBe(302)
    expect(await suspended()).toEqual(['S4'])
    expect((await server.post('/login', { email: s3!.email, password: STRONG_PASSWORD })).headers.get('Location')).toBe(
      '/staff',
    )

    // Up to Premium: everyone is back.
    await payFor(owner.id, 3)
    expect(await suspended()).toEqual([])
    const s4Cookie = await logIn(server, s4!.email)

    // The plan is cancelled and ends: nobody is suspended, sessions live on (staff keep stamping).
    await cancelPlan({ userId: owner.id })
    await sql(`update subscriptions set period_ends_at = now() - interval '1 day' where user_id = :id`, {
      id: owner.id,
    })
    await applyDueTransitions(owner.id)
    const [status] = await sql<{ status: string }>(`select status from subscriptions where user_id = :id`, {
      id: owner.id,
    })
    expect(status!.status).toBe('ended')
    expect(await suspended()).toEqual([])
    expect(await sessionLive(s4Cookie)).toBe(true)
    expect(await pageText(await server.get('/account/team', owner.cookie))).toContain('3 of 20 staff seats taken')
  })

  test('a trial that ends changes nothing', async () => {
    const owner = await createOwner()
    const member = await signedInStaffMember(server, owner.id)
    await sql(`update subscriptions set trial_ends_at = now() - interval '1 day' where user_id = :id`, { id: owner.id })
    await runPlanHousekeeping()
    expect((await staffRow(member.email)).suspended_at).toBeNull()
    expect(await sessionLive(member.cookie)).toBe(true)
  })
})
