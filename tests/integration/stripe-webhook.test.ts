import { describe, expect, test } from 'vitest'
import { createOwner } from '#tests/support/account-owner.ts'
import { createUser, logIn, sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useStripePeer } from '#tests/support/stripe-peer-hooks.ts'
import { type SignedEvent } from '#tests/support/stripe-peer.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/*
 * Issue 33, item 4 (docs/product/paying-by-card.md, "Webhook" and "Mapping"): POST /api/stripe/webhook against the
 * Stripe peer, through the official package. Signed events only; each applied once, in any order, from the
 * subscription as Stripe has it now; every transition recorded with its cause; a failed renewal waits with 7 days of
 * grace, a notice and an e-mail.
 */
const peer = useStripePeer()
const server = useTestServer()

const DAY = 24 * 60 * 60
const unix = (date = new Date()) => Math.floor(date.getTime() / 1000)
const hook = (event: SignedEvent) => peer.deliver(`${server.baseUrl}/api/stripe/webhook`, event)
/** The words of a page, tags and runs of spaces made one space. */
const words = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ')
const json = (answer: { body: string }) => JSON.parse(answer.body) as Record<string, unknown>

async function plan(userId: string) {
  const [row] = await sql<{
    status: string
    provider: string
    tier: number | null
    period_months: number | null
    period_ends_at: Date | null
    access_ends_at: Date | null
    stripe_customer_id: string | null
    stripe_subscription_id: string | null
  }>(
    `select s.status, s.provider, t.tier, s.period_months, s.period_ends_at, s.access_ends_at, s.stripe_customer_id,
            s.stripe_subscription_id
     from subscriptions s left join tariffs t on t.id = s.tariff_id where s.user_id = :userId`,
    { userId },
  )
  return row!
}
const transitions = async (userId: string) =>
  (
    await sql<{ from_status: string | null; to_status: string; cause: string }>(
      `select c.from_status, c.to_status, c.cause from subscription_status_changes c
       join subscriptions s on s.id = c.subscription_id where s.user_id = :userId order by c.changed_at, c.id`,
      { userId },
    )
  ).map((row) => `${row.from_status ?? '∅'} → ${row.to_status}: ${row.cause}`)
const notices = async (userId: string) =>
  await sql<{ kind: string; message: string }>(
    `select kind, message from notices where user_id = :userId order by created_at`,
    { userId },
  )

/** An owner in their trial who paid by card at Stripe's checkout: the subscription Stripe made, not yet announced. */
async function ownerWithCardSubscription(
  lookupKey = 'stampwise_basic_month',
  status: 'trialing' | 'active' = 'active',
) {
  const owner = await createOwner()
  const customer = `cus_${owner.id.slice(0, 8)}`
  const subscription = peer.createSubscription({ customer, lookupKey, status, metadata: { owner_id: owner.id } })
  const completed = peer.signedEvent('checkout.session.completed', {
    id: `cs_${owner.id.slice(0, 8)}`,
    object: 'checkout.session',
    mode: 'subscription',
    customer,
    subscription: subscription.id,
    client_reference_id: owner.id,
    metadata: { owner_id: owner.id },
  })
  return { owner, customer, subscription, completed }
}

describe('the signature', () => {
  test('missing, forged, signed with another secret, expired, or over 64 KB: refused, nothing applied', async () => {
    const { owner, completed } = await ownerWithCardSubscription()
    const url = `${server.baseUrl}/api/stripe/webhook`
    const post = (headers: Record<string, string>, body = completed.payload) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
    const missing = await post({})
    expect([missing.status, await missing.json()]).toEqual([400, { error: 'The Stripe-Signature header is missing' }])
    const forged = await post(
      { 'stripe-signature': completed.header },
      completed.payload.replace('"subscription"', '"subscriptioN"'),
    )
    expect([forged.status, await forged.json()]).toEqual([
      400,
      { error: "The signature does not match this endpoint's signing secret" },
    ])
    const otherSecret = peer.signedEvent('checkout.session.completed', {}, { secret: 'whsec_someone_else' })
    expect((await hook(otherSecret)).status).toBe(400)
    const old = peer.signedEvent('invoice.paid', {}, { timestamp: unix() - 6 * 60 })
    expect(await hook(old)).toEqual({
      status: 400,
      body: JSON.stringify({ error: 'The signature is older than 5 minutes' }),
    })
    const big = await post({ 'stripe-signature': completed.header }, `${completed.payload}${' '.repeat(64 * 1024)}`)
    expect(big.status).toBe(413)
    // A GET is not an event.
    expect((await server.get('/api/stripe/webhook')).status).toBe(405)
    expect(await sql(`select id from stripe_events`)).toEqual([])
    expect((await plan(owner.id)).status).toBe('trial')
  })

  test('the webhook takes posts from Stripe, which are no page of ours (exempt from the same-origin rule)', async () => {
    const event = peer.signedEvent('customer.created', { id: 'cus_x', object: 'customer' })
    const answer = await fetch(`${server.baseUrl}/api/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': event.header, origin: 'https://stripe.com' },
      body: event.payload,
    })
    expect([answer.status, await answer.json()]).toEqual([
      200,
      { received: true, outcome: 'ignored: customer.created' },
    ])
  })
})

describe('events applied to the plan', () => {
  test('trial → card → active; the same event again applies nothing; the notice says so', async () => {
    const { owner, customer, subscription, completed } = await ownerWithCardSubscription('stampwise_standard_year')
    const first = await hook(completed)
    expect(first.status).toBe(200)
    expect(json(first).outcome).toMatch(/^trial → active \(Standard, until \d{4}-\d\d-\d\d\)$/)
    expect(await plan(owner.id)).toMatchObject({
      status: 'active',
      provider: 'stripe',
      tier: 2,
      period_months: 12,
      stripe_customer_id: customer,
      stripe_subscription_id: subscription.id,
      access_ends_at: null,
    })
    expect(new Date((await plan(owner.id)).period_ends_at!).getTime()).toBe(
      subscription.items.data[0]!.current_period_end * 1000,
    )
    const replay = await hook(completed)
    expect([replay.status, json(replay).outcome]).toEqual([200, 'already applied'])
    // The subscription's own event for the same change: applied, and nothing moves.
    expect(json(await hook(peer.signedEvent('customer.subscription.created', subscription))).outcome).toMatch(
      /^still active/,
    )
    expect(await transitions(owner.id)).toEqual([
      '∅ → trial: test owner',
      'trial → active: stripe: checkout.session.completed',
    ])
    expect((await notices(owner.id)).map((notice) => notice.kind)).toEqual(['payment_confirmed'])
    expect(await sql(`select type, outcome from stripe_events where id = :id`, { id: completed.id })).toEqual([
      { type: 'checkout.session.completed', outcome: json(first).outcome },
    ])
  })

  test('a renewal paid moves the period on; one that fails waits 7 days with a notice and an e-mail; paid, active again', async () => {
    const { owner, subscription, completed } = await ownerWithCardSubscription()
    await hook(completed)
    const end = subscription.items.data[0]!.current_period_end
    const renewed = peer.updateSubscription(subscription.id, { periodStart: end, periodEnd: end + 30 * DAY })
    const invoice = (status: string, created = unix()) => ({
      id: `in_${status}_${created}`,
      object: 'invoice',
      customer: renewed.customer,
      status,
      created,
      parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id, metadata: {} } },
    })
    expect((await hook(peer.signedEvent('invoice.paid', invoice('paid')))).status).toBe(200)
    expect(new Date((await plan(owner.id)).period_ends_at!).getTime()).toBe((end + 30 * DAY) * 1000)

    peer.updateSubscription(subscription.id, { status: 'past_due' })
    const failedAt = unix() - 2 * DAY
    const failedEvent = peer.signedEvent('invoice.payment_failed', invoice('open', failedAt))
    const failed = await hook(failedEvent)
    expect(json(failed).outcome).toMatch(/^active → waiting_payment \(Basic, until /)
    expect(await plan(owner.id)).toMatchObject({ status: 'waiting_payment', tier: 1 })
    expect(new Date((await plan(owner.id)).access_ends_at!).getTime()).toBe((failedAt + 7 * DAY) * 1000)
    const graceEnds = new Date((failedAt + 7 * DAY) * 1000).toISOString().slice(0, 10)
    expect((await notices(owner.id)).at(-1)).toEqual({
      kind: 'payment_failed',
      message: `Your card payment failed: update your card by ${graceEnds} to keep your Basic plan.`,
    })
    const mails = await sql<{ subject: string; text_body: string }>(
      `select subject, text_body from mails where to_address = :email`,
      { email: owner.email },
    )
    expect(mails).toHaveLength(1)
    expect(mails[0]!.subject).toBe('Your Stampwise card payment failed')
    expect(mails[0]!.text_body).toContain(`Your plan keeps working until ${graceEnds}`)
    expect(mails[0]!.text_body).toContain('/account/plan')
    // Written by the transaction that records the failure (one xmin): a process killed after that commit still sends
    // the mail from the outbox; one killed before it leaves neither, and Stripe sends the event again.
    const writers = await sql<{ xmin: string }>(
      `select xmin::text from mails where to_address = :email
       union select xmin::text from notices where user_id = :id and kind = 'payment_failed'
       union select e.xmin::text from stripe_events e where e.id = :eventId`,
      { email: owner.email, id: owner.id, eventId: failedEvent.id },
    )
    expect(writers).toHaveLength(1)

    peer.updateSubscription(subscription.id, { status: 'active' })
    await hook(peer.signedEvent('invoice.paid', invoice('paid')))
    expect(await plan(owner.id)).toMatchObject({ status: 'active', access_ends_at: null })
    expect((await transitions(owner.id)).slice(1)).toEqual([
      'trial → active: stripe: checkout.session.completed',
      'active → waiting_payment: stripe: invoice.payment_failed',
      'waiting_payment → active: stripe: invoice.paid',
    ])
  })

  test('a renewal that stays unpaid past the grace days ends the plan', async () => {
    const { owner, subscription, completed } = await ownerWithCardSubscription()
    await hook(completed)
    peer.updateSubscription(subscription.id, { status: 'unpaid' })
    const created = unix() - 8 * DAY
    await hook(
      peer.signedEvent('invoice.payment_failed', {
        id: 'in_old',
        object: 'invoice',
        customer: subscription.customer,
        created,
        parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id } },
      }),
    )
    // The grace ran out a day ago: the time-based rules end it, as for a bank transfer left unpaid.
    const { status } = (
      await sql<{ status: string }>(`select status from subscriptions where user_id = :userId`, { userId: owner.id })
    )[0]!
    expect(status).toBe('waiting_payment')
    const { runPlanHousekeeping } = await import('#app/services/billing/plan-housekeeping.server.ts')
    await runPlanHousekeeping()
    expect((await plan(owner.id)).status).toBe('ended')
  })

  test('upgrade and downgrade follow the price; cancel at period end → cancelled; deleted → ended; older events late change nothing', async () => {
    const { owner, subscription, completed } = await ownerWithCardSubscription()
    await hook(completed)
    const upgraded = peer.updateSubscription(subscription.id, { lookupKey: 'stampwise_premium_month' })
    const upgradeEvent = peer.signedEvent('customer.subscription.updated', upgraded)
    await hook(upgradeEvent)
    expect(await plan(owner.id)).toMatchObject({ status: 'active', tier: 3, period_months: 1 })
    const downgraded = peer.updateSubscription(subscription.id, { lookupKey: 'stampwise_standard_year' })
    await hook(peer.signedEvent('customer.subscription.updated', downgraded))
    expect(await plan(owner.id)).toMatchObject({ status: 'active', tier: 2, period_months: 12 })

    const cancelling = peer.updateSubscription(subscription.id, { cancel_at_period_end: true, canceled_at: unix() })
    await hook(peer.signedEvent('customer.subscription.updated', cancelling))
    expect((await plan(owner.id)).status).toBe('cancelled')
    const deleted = peer.updateSubscription(subscription.id, { status: 'canceled' })
    await hook(peer.signedEvent('customer.subscription.deleted', deleted))
    expect((await plan(owner.id)).status).toBe('ended')

    // The upgrade's event, delivered again late, and an older one never delivered: the state is Stripe's now.
    const late = peer.signedEvent('customer.subscription.updated', upgraded, { created: unix() - 3600 })
    expect(json(await hook(late)).outcome).toMatch(/^still ended/)
    expect(json(await hook(upgradeEvent)).outcome).toBe('already applied')
    expect(await plan(owner.id)).toMatchObject({ status: 'ended', tier: 2 })
    expect((await transitions(owner.id)).slice(1)).toEqual([
      'trial → active: stripe: checkout.session.completed',
      'active → cancelled: stripe: customer.subscription.updated',
      'cancelled → ended: stripe: customer.subscription.deleted',
    ])
  })

  test('an event for a customer no owner pays through answers 200 and changes nothing', async () => {
    const stranger = peer.createSubscription({ customer: 'cus_stranger', lookupKey: 'stampwise_basic_month' })
    const answer = await hook(peer.signedEvent('customer.subscription.created', stranger))
    expect([answer.status, json(answer).outcome]).toEqual([200, 'nothing: no owner pays through customer cus_stranger'])
    // Metadata naming an owner who pays through another customer does not take their plan over.
    const { owner, completed } = await ownerWithCardSubscription()
    await hook(completed)
    const intruder = peer.createSubscription({
      customer: 'cus_intruder',
      lookupKey: 'stampwise_premium_year',
      metadata: { owner_id: owner.id },
    })
    expect(json(await hook(peer.signedEvent('customer.subscription.created', intruder))).outcome).toBe(
      'nothing: no owner pays through customer cus_intruder',
    )
    expect(await plan(owner.id)).toMatchObject({ tier: 1 })
  })

  test('the same event delivered twice at once is applied once', async () => {
    const { owner, completed } = await ownerWithCardSubscription()
    const answers = await Promise.all([hook(completed), hook(completed), hook(completed)])
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
    expect(
      answers.map((answer) => json(answer).outcome).filter((outcome) => outcome === 'already applied'),
    ).toHaveLength(2)
    expect(await transitions(owner.id)).toHaveLength(2)
    expect((await notices(owner.id)).map((notice) => notice.kind)).toEqual(['payment_confirmed'])
  })

  test('Stripe out of reach: 503 and nothing recorded, so its retry applies the event', async () => {
    const { owner, completed } = await ownerWithCardSubscription()
    peer.failNext(3, 500)
    const refused = await hook(completed)
    expect(refused.status).toBe(503)
    expect(await sql(`select id from stripe_events where id = :id`, { id: completed.id })).toEqual([])
    expect((await plan(owner.id)).status).toBe('trial')
    expect((await hook(completed)).status).toBe(200)
    expect((await plan(owner.id)).status).toBe('active')
    expect(peer.violations()).toEqual([])
  })
})

describe("the admin's view", () => {
  test("a user's page says how they pay, with Stripe's ids and the events applied", async () => {
    const { owner, customer, subscription, completed } = await ownerWithCardSubscription('stampwise_premium_month')
    const applied = json(await hook(completed)).outcome as string
    const admin = await createUser()
    await sql(`update users set role = 'admin' where id = :id`, { id: admin.id })
    const cookie = await logIn(server, admin.email)
    const response = await server.get(`/admin/users/${owner.id}`, cookie)
    expect(response.status).toBe(200)
    const text = words(await pageText(response))
    expect(text).toContain('Pays by Card (Stripe)')
    expect(text).toContain(`Stripe customer ${customer}`)
    expect(text).toContain(`Stripe subscription ${subscription.id}`)
    expect(text).toContain(`checkout.session.completed ${applied} ${completed.id}`)
    // An owner paying by bank transfer: no Stripe section.
    const other = await createOwner()
    const manual = words(await pageText(await server.get(`/admin/users/${other.id}`, cookie)))
    expect(manual).toContain('Pays by Bank transfer')
    expect(manual).not.toContain('Stripe events')
  })
})
