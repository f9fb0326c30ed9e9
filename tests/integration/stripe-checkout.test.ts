import { describe, expect, test } from 'vitest'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { createUser, logIn, sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useStripePeer } from '#tests/support/stripe-peer-hooks.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/*
 * Issue 33, items 2, 3 and part of 5 (docs/product/paying-by-card.md): 'Pay by card' on /account/tariffs makes a
 * Checkout Session for the owner's one Stripe customer and answers 303 to Stripe's page (the peer's stand-in); paying
 * there sends Stripe's events to the webhook, and the return address says the payment is being confirmed until the
 * plan is active. A card plan then changes plan at Stripe (no invoice beside it) and is cancelled at Stripe at the
 * period's end. Over HTTP against the built app, through the official package.
 */
const peer = useStripePeer()
const server = useTestServer()

const words = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ')
const plan = async (userId: string) =>
  (
    await sql<{
      status: string
      provider: string
      tier: number | null
      period_months: number | null
      stripe_customer_id: string | null
    }>(
      `select s.status, s.provider, t.tier, s.period_months, s.stripe_customer_id
       from subscriptions s left join tariffs t on t.id = s.tariff_id where s.user_id = :userId`,
      { userId },
    )
  )[0]!
const payOnStripe = (url: string, outcome: 'pay' | 'decline') =>
  fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `outcome=${outcome}`,
  })

describe('paying by card', () => {
  test('the tariffs page offers both ways for each plan and period', async () => {
    const owner = await signedInOwner(server)
    const text = words(await pageText(await server.get('/account/tariffs', owner.cookie)))
    expect(text.match(/Pay by card/g)).toHaveLength(7) // six buttons and the lead's sentence
    expect(text.match(/Pay by bank transfer/g)).toHaveLength(6)
    expect(text).toContain('Yearly: $390')
    // What each plan holds, the same list as the landing page's.
    expect(text).toContain('3 active cards 12 push messages a month 5 staff logins Up to 50 locations')
  })

  test('forms may redirect to Stripe’s pages: CSP form-action allows its origin (browsers check form redirects)', async () => {
    const response = await server.get('/')
    expect(response.headers.get('content-security-policy')).toContain(`form-action 'self' ${peer.origin};`)
  })

  test('the landing page’s pricing says owners may pay by card', async () => {
    const text = words(await pageText(await server.get('/')))
    expect(text).toContain('Pay by card, or by invoice and bank transfer.')
    expect(text).not.toContain('Paid plans are billed by invoice and bank transfer.')
  })

  test('trial → Pay by card → Stripe’s page → paid → the plan is active; the return only says it is being confirmed', async () => {
    const owner = await signedInOwner(server)
    peer.setWebhookUrl(`${server.baseUrl}/api/stripe/webhook`)
    const answer = await server.post(
      '/account/tariffs',
      { tier: '2', periodMonths: '12', method: 'card' },
      owner.cookie,
    )
    expect(answer.status).toBe(303)
    const location = answer.headers.get('location')!
    expect(location).toMatch(new RegExp(`^${peer.origin}/pay/cs_test_`))
    const session = peer.checkoutSession(location.split('/').at(-1)!)!
    const { trial_ends_at } = (
      await sql<{ trial_ends_at: Date }>(`select trial_ends_at from subscriptions where user_id = :id`, {
        id: owner.id,
      })
    )[0]!
    const price = peer.prices().find((candidate) => candidate.lookup_key === 'stampwise_standard_year')!
    expect(session).toMatchObject({
      mode: 'subscription',
      customer: (await plan(owner.id)).stripe_customer_id,
      client_reference_id: owner.id,
      allow_promotion_codes: true,
      line_items: [{ price: price.id, quantity: 1 }],
      subscription_data: {
        metadata: { owner_id: owner.id, tier: '2', period: 'year' },
        trial_end: Math.floor(new Date(trial_ends_at).getTime() / 1000),
      },
    })
    expect(session.success_url).toMatch(/^https?:\/\/[^/]+\/account\/plan\?checkout=\{CHECKOUT_SESSION_ID\}$/)
    expect(session.cancel_url).toMatch(/^https?:\/\/[^/]+\/account\/tariffs$/)

    // Back without paying (or a forged return): nothing changed.
    const forged = words(await pageText(await server.get(`/account/plan?checkout=${session.id}`, owner.cookie)))
    expect(forged).toContain('Your payment is being confirmed')
    expect((await plan(owner.id)).status).toBe('trial')

    const paid = await payOnStripe(location, 'pay')
    expect(paid.status).toBe(303)
    expect(paid.headers.get('location')).toBe(session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id))
    expect(await plan(owner.id)).toMatchObject({ status: 'active', provider: 'stripe', tier: 2, period_months: 12 })
    const back = words(await pageText(await server.get(`/account/plan?checkout=${session.id}`, owner.cookie)))
    expect(back).toContain('Thank you: your card payment is confirmed and your Standard Plan is active.')
    expect(peer.customers().filter((customer) => customer.metadata.owner_id === owner.id)).toHaveLength(1)
    expect(peer.violations()).toEqual([])
  })

  test('one Stripe customer per owner, kept across checkouts; a declined card changes nothing', async () => {
    const owner = await signedInOwner(server)
    const first = await server.post('/account/tariffs', { tier: '1', periodMonths: '1', method: 'card' }, owner.cookie)
    const second = await server.post(
      '/account/tariffs',
      { tier: '3', periodMonths: '12', method: 'card' },
      owner.cookie,
    )
    expect([first.status, second.status]).toEqual([303, 303])
    const sessions = [first, second].map((answer) =>
      peer.checkoutSession(answer.headers.get('location')!.split('/').at(-1)!)!,
    )
    expect(sessions[0]!.customer).toBe(sessions[1]!.customer)
    expect(peer.customers().filter((customer) => customer.metadata.owner_id === owner.id)).toHaveLength(1)
    const declined = await payOnStripe(first.headers.get('location')!, 'decline')
    expect(declined.status).toBe(402)
    expect(await declined.text()).toContain('Your card was declined.')
    expect((await plan(owner.id)).status).toBe('trial')
  })

  test('a card plan changes at Stripe, refuses a bank transfer beside it, and is cancelled at the period’s end', async () => {
    const owner = await signedInOwner(server)
    peer.setWebhookUrl(`${server.baseUrl}/api/stripe/webhook`)
    const checkout = await server.post(
      '/account/tariffs',
      { tier: '1', periodMonths: '1', method: 'card' },
      owner.cookie,
    )
    await payOnStripe(checkout.headers.get('location')!, 'pay')
    expect(await plan(owner.id)).toMatchObject({ status: 'active', tier: 1, period_months: 1 })

    const upgrade = await server.post(
      '/account/tariffs',
      { tier: '3', periodMonths: '12', method: 'card' },
      owner.cookie,
    )
    expect([upgrade.status, upgrade.headers.get('location')]).toEqual([302, '/account/plan'])
    expect(await plan(owner.id)).toMatchObject({ status: 'active', tier: 3, period_months: 12 })
    const subscriptionId = (
      await sql<{ id: string }>(`select stripe_subscription_id as id from subscriptions where user_id = :id`, {
        id: owner.id,
      })
    )[0]!.id
    expect(peer.subscription(subscriptionId)!.items.data[0]!.price.lookup_key).toBe('stampwise_premium_year')

    const transfer = await server.post('/account/tariffs', { tier: '2', periodMonths: '1' }, owner.cookie)
    expect(transfer.status).toBe(409)
    expect(await pageText(transfer)).toContain('You pay by card: choose Pay by card to change your plan')
    expect(
      await sql(`select i.id from invoices i join subscriptions s on s.id = i.subscription_id where s.user_id = :id`, {
        id: owner.id,
      }),
    ).toEqual([])

    const cancelled = await server.post('/account/plan', { intent: 'cancel', understood: 'on' }, owner.cookie)
    expect(cancelled.status).toBe(302)
    expect(peer.subscription(subscriptionId)!.cancel_at_period_end).toBe(true)
    expect((await plan(owner.id)).status).toBe('cancelled')
    expect(peer.violations()).toEqual([])
  })
})

describe('the card on /account/plan', () => {
  test('the card, the next charge, the card invoices with their links, and Manage billing to Stripe’s portal and back', async () => {
    const owner = await signedInOwner(server)
    peer.setWebhookUrl(`${server.baseUrl}/api/stripe/webhook`)
    // Past the trial's first 48 hours' rule: an owner whose trial is over pays at once.
    await sql(
      `update subscriptions set trial_ends_at = now() - interval '1 day', status = 'ended' where user_id = :id`,
      {
        id: owner.id,
      },
    )
    const checkout = await server.post(
      '/account/tariffs',
      { tier: '2', periodMonths: '1', method: 'card' },
      owner.cookie,
    )
    await payOnStripe(checkout.headers.get('location')!, 'pay')
    const subscriptionId = (
      await sql<{ id: string }>(`select stripe_subscription_id as id from subscriptions where user_id = :id`, {
        id: owner.id,
      })
    )[0]!.id
    const periodEnd = new Date(peer.subscription(subscriptionId)!.items.data[0]!.current_period_end * 1000)
    const text = words(await pageText(await server.get('/account/plan', owner.cookie)))
    expect(text).toContain('Payment by card')
    expect(text).toContain('Card Visa ending in 4242 (expires 12/2030)')
    expect(text).toMatch(new RegExp(`Next charge \\$39(\\.00)? on ${periodEnd.getUTCDate()} `))
    expect(text).toMatch(/PEER-\d{4}, \$39(\.00)? \(paid\) View invoice PEER-\d{4}/)

    const manage = await server.post('/account/plan', { intent: 'billing' }, owner.cookie)
    expect(manage.status).toBe(303)
    const portal = await fetch(manage.headers.get('location')!)
    expect(await portal.text()).toMatch(/href="[^"]+\/account\/plan"/)

    // Cancelled at the period's end: no next charge.
    await server.post('/account/plan', { intent: 'cancel', understood: 'on' }, owner.cookie)
    expect(words(await pageText(await server.get('/account/plan', owner.cookie)))).toContain(
      'Next charge None: the plan is set to end',
    )
    expect(peer.violations()).toEqual([])
  })

  test('an owner who pays by bank transfer has no card section, and Manage billing is refused', async () => {
    const owner = await signedInOwner(server)
    expect(words(await pageText(await server.get('/account/plan', owner.cookie)))).not.toContain('Payment by card')
    const manage = await server.post('/account/plan', { intent: 'billing' }, owner.cookie)
    expect(manage.status).toBe(409)
    expect(await pageText(manage)).toContain('Your plan is not paid by card.')
  })
})

describe("the admin's payments list", () => {
  test('bank transfers and card invoices in one list, newest first, each with its way to pay', async () => {
    const owner = await signedInOwner(server)
    peer.setWebhookUrl(`${server.baseUrl}/api/stripe/webhook`)
    // First a bank transfer, chosen and left open; then the owner pays by card instead.
    await server.post('/account/tariffs', { tier: '1', periodMonths: '1', method: 'transfer' }, owner.cookie)
    const transfer = (
      await sql<{ number: string }>(
        `update invoices i set created_at = now() - interval '1 day' from subscriptions s
         where s.id = i.subscription_id and s.user_id = :id returning i.number`,
        { id: owner.id },
      )
    )[0]!.number
    const checkout = await server.post(
      '/account/tariffs',
      { tier: '2', periodMonths: '12', method: 'card' },
      owner.cookie,
    )
    await payOnStripe(checkout.headers.get('location')!, 'pay')
    expect((await plan(owner.id)).provider).toBe('stripe')

    const admin = await createUser()
    await sql(`update users set role = 'admin' where id = :id`, { id: admin.id })
    const page = await server.get(`/admin/users/${owner.id}`, await logIn(server, admin.email))
    expect(page.status).toBe(200)
    const html = await page.text()
    const text = words(html)
    expect(text).toContain('Payments When Paid by Invoice For Amount Status')
    const payments = text.slice(text.indexOf('Payments When Paid by'), text.indexOf('Status history'))
    // The card invoice (Stripe's, with its hosted link; $0 as the trial runs to its end) is the newer one, above the
    // bank transfer's, which the card plan replaced.
    expect(payments).toMatch(
      new RegExp(
        `Card \\(Stripe\\) PEER-\\d{4} — \\$0 Paid .* Bank transfer ${transfer} Basic, monthly \\$19 Replaced \\(void\\) $`,
      ),
    )
    expect(html).toMatch(new RegExp(`<a href="${peer.origin}/invoices/in_[^"]+" rel="noreferrer">PEER-\\d{4}</a>`))
    expect(peer.violations()).toEqual([])
  })
})
