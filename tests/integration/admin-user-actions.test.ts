import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createOwner, signedInOwner } from '#tests/support/account-owner.ts'
import {
  createUser,
  expectAnswer,
  logIn,
  postJson,
  sql,
  STRONG_PASSWORD,
  uniqueEmail,
} from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { createStaffMember } from '#tests/support/staff-member.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * /admin/users/{userId} (every action through its form), /admin/users/new (a pre-made account, to the owner's first
 * sign-in) and /admin/feedback, over HTTP against the built app: the change, its audit entry, the refusals.
 */
let server: Awaited<ReturnType<typeof startTestServer>>
let admin: { id: string; email: string; cookie: string }
beforeAll(async () => {
  server = await startTestServer()
  const user = await createUser({ email: uniqueEmail('admin') })
  await sql(`update users set role = 'admin' where id = :id`, { id: user.id })
  admin = { ...user, cookie: await logIn(server, user.email) }
})
afterAll(async () => {
  await server.close()
})

const DAY_MS = 24 * 60 * 60 * 1000
const page = (userId: string) => `/admin/users/${userId}`
const asAdmin = (userId: string, form: Record<string, string>) => server.post(page(userId), form, admin.cookie)

type SubscriptionRow = {
  id: string
  status: string
  tier: number | null
  period_months: number | null
  trial_ends_at: Date
  period_starts_at: Date | null
  period_ends_at: Date | null
  additional_quota: number
}
async function subscriptionOf(userId: string) {
  const [row] = await sql<SubscriptionRow>(
    `select s.id, s.status, t.tier, s.period_months, s.trial_ends_at, s.period_starts_at, s.period_ends_at, s.additional_quota
     from subscriptions s left join tariffs t on t.id = s.tariff_id where s.user_id = :userId`,
    { userId },
  )
  return row!
}

// The audit row's before/after are JSONB of any record's shape: the assertions read fields of each kind.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AuditRow = { actor_id: string; action: string; target_type: string; target_id: string; before: any; after: any }
async function auditOf(targetId: string) {
  return sql<AuditRow>(
    `select actor_id, action, target_type, target_id, before, after from audit_log where target_id = :targetId order by id`,
    { targetId },
  )
}

/** A 302 back to the user's page, with the toast cookie. */
function expectDone(response: Response, userId: string) {
  expect(response.status).toBe(302)
  expect(response.headers.get('Location')).toBe(page(userId))
  expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('__toast='))).toBe(true)
}

async function expectRefused(response: Response, message: string, status = 400) {
  expect(response.status).toBe(status)
  expect(await pageText(response)).toContain(message)
}

const CONFIRM_MISSING = 'Tick “I confirm” to go ahead'

async function openInvoice(userId: string) {
  const [invoice] = await sql<{ id: string; number: string; reason: string; tier: number }>(
    `select i.id, i.number, i.reason, t.tier from invoices i join subscriptions s on s.id = i.subscription_id
     join tariffs t on t.id = i.tariff_id where s.user_id = :userId and i.status = 'open'`,
    { userId },
  )
  return invoice
}

async function makeActive(userId: string, tier = 1) {
  await sql(
    `update subscriptions set status = 'active', tariff_id = (select id from tariffs where tier = :tier), period_months = 1,
       period_starts_at = now(), period_ends_at = now() + interval '30 days' where user_id = :userId`,
    { userId, tier },
  )
}

describe('who may use the admin pages', () => {
  test('a guest is sent to /login, an owner gets 403, on every page and action; nothing changes', async () => {
    const owner = await signedInOwner(server)
    for (const path of [page(owner.id), '/admin/users/new', '/admin/feedback']) {
      const guest = await server.get(path)
      expect(guest.status).toBe(302)
      expect(guest.headers.get('Location')).toBe(`/login?${new URLSearchParams({ redirectTo: path })}`)
      expect((await server.get(path, owner.cookie)).status).toBe(403)
    }
    const forms: Record<string, string>[] = [
      { intent: 'grant-quota', messages: '50', confirm: 'on' },
      { intent: 'extend-trial', days: '30', confirm: 'on' },
      { intent: 'change-plan', tier: '3', periodMonths: '12', confirm: 'on' },
      { intent: 'end-subscription', confirm: 'on' },
      { intent: 'disable', confirm: 'on' },
    ]
    for (const form of forms) {
      expect((await server.post(page(owner.id), form, owner.cookie)).status).toBe(403)
      const guest = await server.post(page(owner.id), form)
      expect(guest.status).toBe(302)
      expect(guest.headers.get('Location')).toMatch(/^\/login\?redirectTo=/)
    }
    expect((await server.post('/admin/users/new', { email: uniqueEmail(), confirm: 'on' }, owner.cookie)).status).toBe(
      403,
    )
    expect((await server.post('/admin/feedback', { intent: 'handle', messageId: owner.id }, owner.cookie)).status).toBe(
      403,
    )
    expect(await subscriptionOf(owner.id)).toMatchObject({ status: 'trial', additional_quota: 0, tier: null })
    expect(await auditOf(owner.id)).toEqual([])
    expect((await server.get('/account', owner.cookie)).status).toBe(200)
  })

  test('an unknown or malformed user id is a 404', async () => {
    expect((await server.get(page('8d5e1b0c-3f7a-4c1e-9b2d-0a6f4e2c1d3b'), admin.cookie)).status).toBe(404)
    expect((await server.get(page('not-a-uuid'), admin.cookie)).status).toBe(404)
    expect((await asAdmin('not-a-uuid', { intent: 'grant-quota', messages: '5', confirm: 'on' })).status).toBe(404)
  })
})

describe('/admin/users/{userId}', () => {
  test('shows the profile, the subscription and its history, the cards with their edit links, the pushes', async () => {
    const owner = await createOwner()
    const [card] = await sql<{ id: string }>(
      `insert into cards (user_id, slug, status, title, business_name) values (:id, :slug, 'active', 'Coffee card', 'Corner Coffee') returning id`,
      { id: owner.id, slug: `card-${Date.now().toString(36)}` },
    )
    await sql(`insert into passes (card_id, short_code) values (:cardId, :code)`, {
      cardId: card!.id,
      code: 'ABCDEFGH'.replace('A', 'Z'),
    })
    await sql(
      `insert into notifications (card_id, user_id, title, body, status, queued_at) values (:cardId, :userId, 'Happy hour', 'Two for one', 'done', now())`,
      { cardId: card!.id, userId: owner.id },
    )
    const response = await server.get(page(owner.id), admin.cookie)
    expect(response.status).toBe(200)
    const html = await pageText(response)
    expect(html).toContain(owner.email)
    expect(html).toContain('Free trial')
    // The status in words, once: not "Free trial trial" (issue 30, item 7).
    expect(html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ')).not.toMatch(/Free trial trial/)
    expect(html).toContain('test owner') // the status history's cause
    expect(html).toContain('Coffee card')
    expect(html).toContain(`href="/admin/users/${owner.id}/cards/${card!.id}/edit"`)
    expect(html).toContain('Happy hour')
    expect(html).not.toContain('password_hash')
    expect(html).not.toContain('scrypt')
  })

  test('confirm a payment: the open invoice is paid and the owner is active for its period', async () => {
    const owner = await signedInOwner(server)
    expect((await server.post('/account/tariffs', { tier: '2', periodMonths: '12' }, owner.cookie)).status).toBe(302)
    const invoice = (await openInvoice(owner.id))!

    await expectRefused(await asAdmin(owner.id, { intent: 'confirm-payment', invoiceId: invoice.id }), CONFIRM_MISSING)
    await expectRefused(
      await asAdmin(owner.id, {
        intent: 'confirm-payment',
        invoiceId: '8d5e1b0c-3f7a-4c1e-9b2d-0a6f4e2c1d3b',
        confirm: 'on',
      }),
      'This invoice is no longer open',
    )
    expect((await subscriptionOf(owner.id)).status).toBe('waiting_payment')

    const before = Date.now()
    expectDone(await asAdmin(owner.id, { intent: 'confirm-payment', invoiceId: invoice.id, confirm: 'on' }), owner.id)
    const subscription = await subscriptionOf(owner.id)
    expect(subscription).toMatchObject({ status: 'active', tier: 2, period_months: 12 })
    expect(new Date(subscription.period_starts_at!).getTime()).toBeGreaterThanOrEqual(before - 1000)
    expect(
      new Date(subscription.period_ends_at!).getTime() - new Date(subscription.period_starts_at!).getTime(),
    ).toBeGreaterThan(364 * DAY_MS)
    const [paid] = await sql<{ status: string; paid_by: string }>(
      `select status, paid_by from invoices where id = :id`,
      { id: invoice.id },
    )
    expect(paid).toEqual({ status: 'paid', paid_by: admin.id })

    const [entry] = await auditOf(invoice.id)
    expect(entry).toMatchObject({ actor_id: admin.id, action: 'payment.confirm', target_type: 'invoice' })
    expect(entry!.before.subscription.status).toBe('waiting_payment')
    expect(entry!.after.subscription.status).toBe('active')
    expect(entry!.after.invoice).toEqual({ number: invoice.number, status: 'paid' })
    // The owner's plan page and the admin's page both show it, the invoice among the payments.
    const words = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ')
    const ownerPage = words(await pageText(await server.get('/account/plan', owner.cookie)))
    expect(ownerPage).toContain('Standard Plan')
    expect(ownerPage).toMatch(
      new RegExp(
        `Invoices paid by bank transfer \\d{1,2} \\w+ \\d{4}: ${invoice.number}, \\$390 \\(Standard, yearly\\)`,
      ),
    )
    const adminPage = words(await pageText(await server.get(page(owner.id), admin.cookie)))
    expect(adminPage).toContain('payment.confirm')
    expect(adminPage).toMatch(
      new RegExp(`Bank transfer ${invoice.number} Standard, yearly \\(12 months\\) \\$390 Paid`),
    )
  })

  test('change plan: an invoice for the new plan; an active owner keeps the current plan until it is paid', async () => {
    const owner = await createOwner()
    await expectRefused(
      await asAdmin(owner.id, { intent: 'change-plan', tier: '3', periodMonths: '1' }),
      CONFIRM_MISSING,
    )
    await expectRefused(
      await asAdmin(owner.id, { intent: 'change-plan', tier: '4', periodMonths: '1', confirm: 'on' }),
      'Choose a plan',
    )
    await expectRefused(
      await asAdmin(owner.id, { intent: 'change-plan', tier: '3', periodMonths: '6', confirm: 'on' }),
      'Choose monthly or yearly billing',
    )
    expect(await openInvoice(owner.id)).toBeUndefined()

    expectDone(
      await asAdmin(owner.id, { intent: 'change-plan', tier: '3', periodMonths: '1', confirm: 'on' }),
      owner.id,
    )
    expect(await subscriptionOf(owner.id)).toMatchObject({ status: 'waiting_payment', tier: 3, period_months: 1 })
    expect(await openInvoice(owner.id)).toMatchObject({ tier: 3, reason: 'new' })
    const subscriptionId = (await subscriptionOf(owner.id)).id
    const [entry] = await auditOf(subscriptionId)
    expect(entry).toMatchObject({ actor_id: admin.id, action: 'plan.change', target_type: 'subscription' })
    expect(entry!.before).toMatchObject({ status: 'trial', tier: null, openInvoice: null })
    expect(entry!.after).toMatchObject({ status: 'waiting_payment', tier: 3, requested: { tier: 3, periodMonths: 1 } })

    const paying = await createOwner()
    await makeActive(paying.id, 1)
    await expectRefused(
      await asAdmin(paying.id, { intent: 'change-plan', tier: '1', periodMonths: '1', confirm: 'on' }),
      'This is already the owner’s plan',
    )
    expectDone(
      await asAdmin(paying.id, { intent: 'change-plan', tier: '2', periodMonths: '1', confirm: 'on' }),
      paying.id,
    )
    expect(await subscriptionOf(paying.id)).toMatchObject({ status: 'active', tier: 1 })
    expect(await openInvoice(paying.id)).toMatchObject({ tier: 2, reason: 'change' })
  })

  test('a staff member has no plan of their own: the page shows their employer, and every plan action is refused', async () => {
    const owner = await createOwner()
    const staff = await createStaffMember(owner.id, { name: 'Robin' })
    const shown = await pageText(await server.get(page(staff.id), admin.cookie))
    expect(shown).toContain('Staff member')
    expect(shown).not.toContain('id="subscription-title"')
    const forms: Record<string, string>[] = [
      { intent: 'extend-trial', days: '30', confirm: 'on' },
      { intent: 'change-plan', tier: '3', periodMonths: '12', confirm: 'on' },
      { intent: 'grant-quota', messages: '10', confirm: 'on' },
      { intent: 'end-subscription', confirm: 'on' },
    ]
    for (const form of forms) {
      await expectRefused(
        await asAdmin(staff.id, form),
        "A staff member has no plan of their own: their employer's plan applies.",
      )
    }
    expect(await sql(`select id from subscriptions where user_id = :id`, { id: staff.id })).toEqual([])
  })

  test('extend a trial: days added to its end, or from now when it ended unpaid (back to trial)', async () => {
    const owner = await createOwner()
    const endsAt = new Date((await subscriptionOf(owner.id)).trial_ends_at).getTime()
    await expectRefused(await asAdmin(owner.id, { intent: 'extend-trial', days: '10' }), CONFIRM_MISSING)
    for (const days of ['0', '91', 'ten']) {
      await expectRefused(
        await asAdmin(owner.id, { intent: 'extend-trial', days, confirm: 'on' }),
        'Enter a number of days from 1 to 90',
      )
    }
    expect(new Date((await subscriptionOf(owner.id)).trial_ends_at).getTime()).toBe(endsAt)

    expectDone(await asAdmin(owner.id, { intent: 'extend-trial', days: '10', confirm: 'on' }), owner.id)
    const extended = await subscriptionOf(owner.id)
    expect(extended.status).toBe('trial')
    expect(new Date(extended.trial_ends_at).getTime()).toBe(endsAt + 10 * DAY_MS)
    const [entry] = await auditOf(extended.id)
    expect(entry).toMatchObject({ actor_id: admin.id, action: 'trial.extend', after: { days: 10 } })
    expect(new Date(entry!.before.trialEndsAt).getTime()).toBe(endsAt)
    expect(new Date(entry!.after.trialEndsAt).getTime()).toBe(endsAt + 10 * DAY_MS)

    const lapsed = await createOwner()
    await sql(`update subscriptions set trial_ends_at = now() - interval '3 days' where user_id = :id`, {
      id: lapsed.id,
    })
    const before = Date.now()
    expectDone(await asAdmin(lapsed.id, { intent: 'extend-trial', days: '5', confirm: 'on' }), lapsed.id)
    const restarted = await subscriptionOf(lapsed.id)
    expect(restarted.status).toBe('trial')
    expect(new Date(restarted.trial_ends_at).getTime()).toBeGreaterThanOrEqual(before + 5 * DAY_MS - 1000)
    const changes = await sql<{ from_status: string; to_status: string; cause: string; actor_id: string | null }>(
      `select from_status, to_status, cause, actor_id from subscription_status_changes where subscription_id = :id order by id`,
      { id: restarted.id },
    )
    expect(changes.slice(-2)).toEqual([
      { from_status: 'trial', to_status: 'ended', cause: 'trial ended without a payment', actor_id: null },
      { from_status: 'ended', to_status: 'trial', cause: 'trial extended by an admin by 5 days', actor_id: admin.id },
    ])

    const paying = await createOwner()
    await makeActive(paying.id)
    await expectRefused(
      await asAdmin(paying.id, { intent: 'extend-trial', days: '5', confirm: 'on' }),
      'there is no trial to extend',
    )
  })

  test('grant additional quota', async () => {
    const owner = await createOwner()
    await expectRefused(await asAdmin(owner.id, { intent: 'grant-quota', messages: '25' }), CONFIRM_MISSING)
    await expectRefused(
      await asAdmin(owner.id, { intent: 'grant-quota', messages: '1001', confirm: 'on' }),
      'Enter a number of messages from 1 to 1000',
    )
    expect((await subscriptionOf(owner.id)).additional_quota).toBe(0)
    expectDone(await asAdmin(owner.id, { intent: 'grant-quota', messages: '25', confirm: 'on' }), owner.id)
    expectDone(await asAdmin(owner.id, { intent: 'grant-quota', messages: '5', confirm: 'on' }), owner.id)
    const subscription = await subscriptionOf(owner.id)
    expect(subscription.additional_quota).toBe(30)
    const entries = await auditOf(subscription.id)
    expect(
      entries.map((entry) => [entry.action, entry.actor_id, entry.before.additionalQuota, entry.after.additionalQuota]),
    ).toEqual([
      ['quota.grant', admin.id, 0, 25],
      ['quota.grant', admin.id, 25, 30],
    ])
  })

  test('end a subscription: ended now, an open invoice void, the transition recorded with the admin', async () => {
    const owner = await signedInOwner(server)
    expect((await server.post('/account/tariffs', { tier: '1', periodMonths: '1' }, owner.cookie)).status).toBe(302)
    await expectRefused(await asAdmin(owner.id, { intent: 'end-subscription' }), CONFIRM_MISSING)
    expect((await subscriptionOf(owner.id)).status).toBe('waiting_payment')

    expectDone(await asAdmin(owner.id, { intent: 'end-subscription', confirm: 'on' }), owner.id)
    const subscription = await subscriptionOf(owner.id)
    expect(subscription.status).toBe('ended')
    expect(new Date(subscription.trial_ends_at).getTime()).toBeLessThanOrEqual(Date.now())
    expect(await openInvoice(owner.id)).toBeUndefined()
    const [change] = await sql<{ from_status: string; to_status: string; cause: string; actor_id: string }>(
      `select from_status, to_status, cause, actor_id from subscription_status_changes where subscription_id = :id order by id desc limit 1`,
      { id: subscription.id },
    )
    expect(change).toEqual({
      from_status: 'waiting_payment',
      to_status: 'ended',
      cause: 'ended by admin',
      actor_id: admin.id,
    })
    const [entry] = await auditOf(subscription.id)
    expect(entry).toMatchObject({
      actor_id: admin.id,
      action: 'subscription.end',
      before: { status: 'waiting_payment' },
      after: { status: 'ended', openInvoice: null },
    })
    expect(entry!.before.openInvoice).toMatch(/^SW-/)
    await expectRefused(await asAdmin(owner.id, { intent: 'end-subscription', confirm: 'on' }), 'already ended')
    // The owner is at the limits gate now.
    expect(await pageText(await server.get('/account/plan', owner.cookie))).toContain('ended')
  })

  test('resend the confirmation link, only to an unconfirmed address', async () => {
    const unconfirmed = await createUser({ confirmed: false })
    await expectRefused(await asAdmin(unconfirmed.id, { intent: 'resend-confirmation' }), CONFIRM_MISSING)
    expectDone(await asAdmin(unconfirmed.id, { intent: 'resend-confirmation', confirm: 'on' }), unconfirmed.id)
    const mails = await sql<{ text_body: string }>(`select text_body from mails where to_address = :email`, {
      email: unconfirmed.email,
    })
    expect(mails).toHaveLength(1)
    expect(mails[0]!.text_body).toMatch(/\/email-confirmed\?token=[\w-]{20,}/)
    const [entry] = await auditOf(unconfirmed.id)
    expect(entry).toMatchObject({
      actor_id: admin.id,
      action: 'email.resend_confirmation',
      after: { confirmationMailedTo: unconfirmed.email },
    })

    const confirmed = await createOwner()
    await expectRefused(
      await asAdmin(confirmed.id, { intent: 'resend-confirmation', confirm: 'on' }),
      'already confirmed',
    )
  })

  test('disable ends the owner’s sessions and sign-ins; enable lets them back in', async () => {
    const owner = await signedInOwner(server)
    expect((await server.get('/account', owner.cookie)).status).toBe(200)
    await expectRefused(await asAdmin(owner.id, { intent: 'disable' }), CONFIRM_MISSING)
    expect((await server.get('/account', owner.cookie)).status).toBe(200)

    expectDone(await asAdmin(owner.id, { intent: 'disable', confirm: 'on' }), owner.id)
    const signedOut = await server.get('/account', owner.cookie)
    expect(signedOut.status).toBe(302)
    expect(signedOut.headers.get('Location')).toMatch(/^\/login/)
    const [sessions] = await sql<{ count: number }>(`select count(*)::int as count from sessions where user_id = :id`, {
      id: owner.id,
    })
    expect(sessions!.count).toBe(0)
    expect((await postJson(server, '/api/auth/login', { email: owner.email, password: STRONG_PASSWORD })).status).toBe(
      401,
    )
    await expectRefused(await asAdmin(owner.id, { intent: 'disable', confirm: 'on' }), 'already disabled')
    expect(await pageText(await server.get(page(owner.id), admin.cookie))).toContain('Enable the account')

    expectDone(await asAdmin(owner.id, { intent: 'enable', confirm: 'on' }), owner.id)
    expect((await server.get('/account', owner.cookie)).status).toBe(302) // the old session stays ended
    expect((await server.get('/account', await logIn(server, owner.email))).status).toBe(200)
    expect(
      (await auditOf(owner.id)).map((entry) => [
        entry.action,
        entry.actor_id,
        entry.before.disabledAt === null,
        entry.after.disabledAt === null,
      ]),
    ).toEqual([
      ['account.disable', admin.id, true, false],
      ['account.enable', admin.id, false, true],
    ])
    await expectRefused(
      await asAdmin(admin.id, { intent: 'disable', confirm: 'on' }),
      'You cannot disable your own account',
    )
  })
})

describe('/admin/users/new: a pre-made account', () => {
  const CARD = {
    businessName: 'Bakery Blue',
    title: 'Croissant club',
    stampsRequired: '6',
    reward: 'A free croissant',
    terms: '',
    backgroundColor: '#204060',
    textColor: '#FFFFFF',
    stampIcon: 'heart',
  }

  test('invalid input and a taken address are refused with their messages; nothing is created', async () => {
    // Reached from every admin page's menu.
    expect(await pageText(await server.get('/admin', admin.cookie))).toMatch(
      /<a[^>]*href="\/admin\/users\/new"[^>]*>New account<\/a>/,
    )
    expect(await pageText(await server.get('/admin/users/new', admin.cookie))).toContain('Create a pre-made account')
    const email = uniqueEmail('premade')
    await expectRefused(await server.post('/admin/users/new', { ...CARD, email }, admin.cookie), CONFIRM_MISSING)
    await expectRefused(
      await server.post('/admin/users/new', { ...CARD, email, stampsRequired: '25', confirm: 'on' }, admin.cookie),
      'Choose how many stamps are needed, from 1 to 20',
    )
    await expectRefused(
      await server.post('/admin/users/new', { ...CARD, email, reward: '', confirm: 'on' }, admin.cookie),
      'Describe the reward',
    )
    await expectRefused(
      await server.post('/admin/users/new', { ...CARD, email: 'not-an-email', confirm: 'on' }, admin.cookie),
      'Invalid email format',
    )
    await expectRefused(
      await server.post('/admin/users/new', { ...CARD, email: admin.email, confirm: 'on' }, admin.cookie),
      'An account with this email already exists',
    )
    expect(await sql(`select id from users where email = :email`, { email })).toEqual([])
  })

  test('creates the owner, a trial and an active card, mails the one-time password; the owner’s first sign-in leads to the card', async () => {
    const email = uniqueEmail('premade')
    const created = await server.post(
      '/admin/users/new',
      { ...CARD, email: email.toUpperCase(), confirm: 'on' },
      admin.cookie,
    )
    expect(created.status).toBe(302)
    const userId = /^\/admin\/users\/([0-9a-f-]{36})$/.exec(created.headers.get('Location') ?? '')?.[1]
    expect(userId).toBeDefined()

    const [user] = await sql<{ email: string; is_premade: boolean; email_confirmed_at: Date | null }>(
      `select email, is_premade, email_confirmed_at from users where id = :userId`,
      { userId },
    )
    expect(user).toEqual({ email, is_premade: true, email_confirmed_at: null })
    expect((await subscriptionOf(userId!)).status).toBe('trial')
    const [card] = await sql<{
      id: string
      slug: string
      status: string
      title: string
      stamps_required: number
      text_color: string
      onboarding_step: string | null
    }>(
      `select id, slug, status, title, stamps_required, text_color, onboarding_step from cards where user_id = :userId`,
      { userId },
    )
    expect(card).toMatchObject({
      status: 'active',
      title: 'Croissant club',
      stamps_required: 6,
      text_color: '#ffffff',
      onboarding_step: null,
    })
    expect(card!.slug).toMatch(/^bakery-blue-[a-z0-9]{6}$/)
    const [entry] = await auditOf(userId!)
    expect(entry).toMatchObject({
      actor_id: admin.id,
      action: 'account.create_premade',
      before: null,
      after: { email, isPremade: true, card: { id: card!.id, title: 'Croissant club' } },
    })
    expect(await pageText(await server.get(page(userId!), admin.cookie))).toContain('account.create_premade')
    await expectRefused(
      await asAdmin(userId!, { intent: 'resend-confirmation', confirm: 'on' }),
      'A pre-made account confirms its address',
    )

    // The invitation: the one-time password, once, in the mail (only its hash is stored).
    const mails = await sql<{ subject: string; text_body: string }>(
      `select subject, text_body from mails where to_address = :email`,
      { email },
    )
    expect(mails).toHaveLength(1)
    expect(mails[0]!.subject).toBe('Your Stampwise account is ready')
    const oneTimePassword = /one-time password ([\w-]+)\./.exec(mails[0]!.text_body)?.[1]
    expect(oneTimePassword).toMatch(/^[A-Za-z2-9]{6}(-[A-Za-z2-9]{6}){3}$/)
    const [stored] = await sql<{ password_hash: string }>(`select password_hash from users where id = :userId`, {
      userId,
    })
    expect(stored!.password_hash).not.toContain(oneTimePassword)

    // Signing in with it answers 'premaid' with a token, and no session.
    const login = await postJson(server, '/api/auth/login', { email, password: oneTimePassword })
    expect(login.headers.getSetCookie()).toEqual([])
    const body = await expectAnswer(login, 200, { status: 'premaid' })
    const token = body.token as string

    const changed = await server.post('/change-password', {
      token,
      password: 'Own.pass7',
      confirmPassword: 'Own.pass7',
    })
    expect(changed.headers.get('Location')).toBe('/password-updated?premade=1')
    expect(await pageText(await server.get('/password-updated?premade=1'))).toContain(
      'href="/login?redirectTo=%2Fpremaid_card"',
    )
    const signedIn = await server.post('/login', { email, password: 'Own.pass7', redirectTo: '/premaid_card' })
    expect(signedIn.headers.get('Location')).toBe('/premaid_card')
    const cookie = signedIn.headers
      .getSetCookie()
      .find((line) => line.startsWith('__session='))!
      .split(';')[0]!
    const html = await pageText(await server.get('/premaid_card', cookie))
    expect(html).toContain('We made your card for you')
    expect(html).toContain('Croissant club')
    expect(html).toContain(`href="/your_qr_code?cardId=${card!.id}"`)
    // The one-time password is spent: it no longer signs in, and the account is an ordinary one.
    expect((await postJson(server, '/api/auth/login', { email, password: oneTimePassword })).status).toBe(401)
    const [after] = await sql<{ is_premade: boolean }>(`select is_premade from users where id = :userId`, { userId })
    expect(after!.is_premade).toBe(false)
  })
})

describe('/admin/feedback', () => {
  async function feedback(subject: string, source = 'contacts') {
    const [row] = await sql<{ id: string }>(
      `insert into feedback_messages (source, email, subject, message) values (:source, 'visitor@example.com', :subject, 'Hello there') returning id`,
      { source, subject },
    )
    return row!.id
  }

  test('lists open messages newest first; mark handled and reopen, audited', async () => {
    const older = await feedback('Older question')
    const id = await feedback('Where is my QR code?', 'account')
    const open = await pageText(await server.get('/admin/feedback', admin.cookie))
    expect(open).toContain('Where is my QR code?')
    expect(open.indexOf('Where is my QR code?')).toBeLessThan(open.indexOf('Older question'))
    expect(open).toContain('Account: contact us')

    expect((await server.post('/admin/feedback', { intent: 'handle', messageId: 'nope' }, admin.cookie)).status).toBe(
      400,
    )
    const handled = await server.post('/admin/feedback?status=open', { intent: 'handle', messageId: id }, admin.cookie)
    expect(handled.status).toBe(302)
    expect(handled.headers.get('Location')).toBe('/admin/feedback?status=open')
    const [row] = await sql<{ handled_at: Date | null; handled_by: string | null }>(
      `select handled_at, handled_by from feedback_messages where id = :id`,
      { id },
    )
    expect(row!.handled_at).not.toBeNull()
    expect(row!.handled_by).toBe(admin.id)
    expect(await pageText(await server.get('/admin/feedback', admin.cookie))).not.toContain('Where is my QR code?')
    const handledPage = await pageText(await server.get('/admin/feedback?status=handled', admin.cookie))
    expect(handledPage).toContain('Where is my QR code?')
    expect(handledPage).toContain(`by ${admin.email}`)
    expect(handledPage).not.toContain('Older question')

    expect(
      (await server.post('/admin/feedback?status=handled', { intent: 'reopen', messageId: id }, admin.cookie)).status,
    ).toBe(302)
    const [reopened] = await sql<{ handled_at: Date | null; handled_by: string | null }>(
      `select handled_at, handled_by from feedback_messages where id = :id`,
      { id },
    )
    expect(reopened).toEqual({ handled_at: null, handled_by: null })
    expect(
      (await auditOf(id)).map((entry) => [entry.action, entry.actor_id, entry.target_type, entry.after.handledBy]),
    ).toEqual([
      ['feedback.handle', admin.id, 'feedback', admin.id],
      ['feedback.reopen', admin.id, 'feedback', null],
    ])
    expect(await auditOf(older)).toEqual([])
  })

  test('50 a page', async () => {
    await sql(
      `insert into feedback_messages (source, email, subject, message, created_at)
       select 'feedback', 'many@example.com', 'Bulk ' || n, 'Message ' || n, now() - make_interval(mins => n) from generate_series(1, 55) n`,
    )
    const first = await pageText(await server.get('/admin/feedback?status=all', admin.cookie))
    expect(first.match(/<li class="panel"/g)).toHaveLength(50)
    expect(first).toContain('Bulk 1<')
    expect(first).toContain('href="/admin/feedback?status=all&page=2"')
    const second = await pageText(await server.get('/admin/feedback?status=all&page=2', admin.cookie))
    expect(second).toContain('Bulk 55<')
    expect(second).not.toContain('Bulk 1<')
  })
})
