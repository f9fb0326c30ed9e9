import { describe, expect, test } from 'vitest'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * The words owners read about their plan and their messages (issue 14, item 17), in each state that used to show
 * stored codes or contradictions: the plan page, the limits pages, a message's history and progress.
 */
const server = useTestServer()

/** What the owner reads: the page's text without scripts (the loader data may carry codes), tags and comments. */
async function readPage(pathname: string, cookie: string) {
  const response = await server.get(pathname, cookie)
  expect(response.status, pathname).toBe(200)
  const html = await response.text()
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&amp;', '&')
    .replaceAll('&#x27;', "'")
    .replace(/\s+/g, ' ')
}

const RAW_CODES =
  /\b(waiting_payment|trial_days|sub_active_flag)\b|\bStatus (trial|active|cancelled|ended|done|queued|sending)\b/

async function createCard(userId: string) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, reward) values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 'A coffee') returning id`,
    { userId, slug: `card-${Math.random().toString(36).slice(2, 10)}` },
  )
  return card!.id
}

const setSubscription = (userId: string, set: string) =>
  sql(`update subscriptions set ${set} where user_id = :userId`, { userId })
const STANDARD = `tariff_id = (select id from tariffs where tier = 2), period_months = 1`

async function openInvoice(userId: string) {
  await sql(
    `insert into invoices (number, subscription_id, tariff_id, period_months, amount_cents, reason)
     select 'SW-WORDS-' || substr(md5(random()::text), 1, 8), s.id, t.id, 1, t.monthly_price_cents, 'new'
     from subscriptions s, tariffs t where s.user_id = :userId and t.tier = 2`,
    { userId },
  )
}

describe('plan words', () => {
  test('trial: the plan page reads "Free trial" once, and the limits page says every feature without "paused"', async () => {
    const owner = await signedInOwner(server)
    const plan = await readPage('/account/plan', owner.cookie)
    expect(plan).toContain('Plan Free trial Status Running Trial 14 days left')
    expect(plan).not.toContain('Free trial trial')
    expect(plan).not.toMatch(RAW_CODES)
    expect(plan).toContain('Active cards 0 of 3')

    const limits = await readPage('/account/limits_trial', owner.cookie)
    expect(limits).toContain('Your free trial is running')
    expect(limits).toContain('14 days free trial left. During the trial you can use every feature')
    expect(limits).not.toContain('What is paused')
    expect(limits).not.toContain('Your plan is active')
  })

  test('waiting for payment: words, never the code, on the plan page, the box and the limits page', async () => {
    const owner = await signedInOwner(server)
    await setSubscription(owner.id, `status = 'waiting_payment', access_ends_at = trial_ends_at, ${STANDARD}`)
    await openInvoice(owner.id)
    const plan = await readPage('/account/plan', owner.cookie)
    expect(plan).toContain('Status Waiting for payment')
    expect(plan).toMatch(/Invoice SW-WORDS-\w+ .*Status Waiting for payment How to pay/)
    expect(plan).toContain('days free trial left Choose a plan for your business needs')
    expect(plan).not.toMatch(RAW_CODES)
    const limits = await readPage('/account/limits_trial', owner.cookie)
    expect(limits).toContain('Your free trial is running')
    expect(limits).not.toContain('What is paused')
    expect(limits).not.toMatch(RAW_CODES)

    // A renewal unpaid after a paid period: access continues for the grace days, and the page says so.
    const renewing = await signedInOwner(server)
    await setSubscription(
      renewing.id,
      `status = 'waiting_payment', ${STANDARD}, trial_ends_at = now() - interval '40 days', period_starts_at = now() - interval '31 days',
       period_ends_at = now() - interval '1 day', access_ends_at = now() + interval '6 days'`,
    )
    const grace = await readPage('/account/limits_trial', renewing.cookie)
    expect(grace).toContain('Your plan is waiting for payment')
    expect(grace).toMatch(/Everything keeps working until \d{1,2} \w+ \d{4}\. Pay the invoice to keep your plan\./)
    expect(grace).not.toContain('What is paused')
    expect(grace).not.toContain('every feature')
    expect(await readPage('/account/plan', renewing.cookie)).not.toMatch(RAW_CODES)
  })

  test('trial over with no plan: no "1 of 0", and the limits page says what is paused, not every feature', async () => {
    const owner = await signedInOwner(server)
    await createCard(owner.id)
    await setSubscription(owner.id, `status = 'ended', trial_ends_at = now() - interval '1 day'`)
    const plan = await readPage('/account/plan', owner.cookie)
    expect(plan).toContain('Trial over Upgrade your plan')
    expect(plan).toContain('Status Ended')
    expect(plan).toContain('Active cards 1, no new cards until you choose a plan')
    expect(plan).toContain('Push messages this month 0 used, none included until you choose a plan')
    expect(plan).not.toMatch(/\d+ of 0\b|used of 0\b/)
    expect(plan).not.toMatch(RAW_CODES)

    const limits = await readPage('/account/limits_trial', owner.cookie)
    expect(limits).toContain('Your free trial is over')
    expect(limits).toContain('What is paused')
    expect(limits).not.toContain('every feature')
    expect(await readPage('/account/limits', owner.cookie)).not.toMatch(/\d+ of 0\b/)
  })

  test('an ended paid plan, and a running one', async () => {
    const ended = await signedInOwner(server)
    await setSubscription(
      ended.id,
      `status = 'ended', ${STANDARD}, trial_ends_at = now() - interval '60 days', period_starts_at = now() - interval '40 days',
       period_ends_at = now() - interval '10 days', additional_quota = 3`,
    )
    const endedLimits = await readPage('/account/limits_trial', ended.cookie)
    expect(endedLimits).toContain('Your plan has ended')
    expect(endedLimits).toContain('What is paused Sending push messages, once your 3 additional messages are used.')
    expect(endedLimits).not.toContain('every feature')
    expect(await readPage('/account/plan', ended.cookie)).toContain('Plan Standard Status Ended')

    const active = await signedInOwner(server)
    await setSubscription(
      active.id,
      `status = 'active', ${STANDARD}, trial_ends_at = now() - interval '20 days', period_starts_at = now() - interval '1 day',
       period_ends_at = now() + interval '29 days'`,
    )
    const activeLimits = await readPage('/account/limits_trial', active.cookie)
    expect(activeLimits).toContain('Your plan is active')
    expect(activeLimits).toContain('Standard Plan: Renews monthly. You can use every feature of your plan.')
    expect(activeLimits).not.toContain('What is paused')
    const plan = await readPage('/account/plan', active.cookie)
    expect(plan).toContain('Status Active')
    expect(plan).not.toMatch(RAW_CODES)
  })
})

describe('message words', () => {
  async function sentMessage(userId: string, cardId: string, title: string, deliveries: string[]) {
    const [message] = await sql<{ id: string }>(
      `insert into notifications (card_id, user_id, title, body, status, queued_at, finished_at, quota_source, recipients)
       values (:cardId, :userId, :title, 'Two for one', 'done', now(), now(), 'monthly', :count) returning id`,
      { cardId, userId, title, count: deliveries.length },
    )
    for (const status of deliveries) {
      await sql(`insert into deliveries (notification_id, status, attempts) values (:id, :status, 1)`, {
        id: message!.id,
        status,
      })
    }
    return message!.id
  }

  test('a message that failed on every device reads "Failed", not "done", in the history and on its page', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const failed = await sentMessage(owner.id, cardId, 'Nobody got this', ['failed', 'gone', 'failed'])
    const partly = await sentMessage(owner.id, cardId, 'Some got this', ['sent', 'failed'])
    await sentMessage(owner.id, cardId, 'Everyone got this', ['sent', 'sent'])

    const history = await readPage(`/account/${cardId}/push_notification/history`, owner.cookie)
    expect(history).toContain('Nobody got this Failed Two for one')
    expect(history).toContain('0 delivered · 3 failed · 0 pending')
    expect(history).toContain('Some got this Partly delivered')
    expect(history).toContain('Everyone got this Delivered')
    expect(history).not.toMatch(/\bdone\b/)

    const progress = await readPage(`/account/${cardId}/push_notification/confirm/${failed}`, owner.cookie)
    expect(progress).toContain('Status: Failed')
    expect(progress).not.toMatch(/\bdone\b/)
    expect(await readPage(`/account/${cardId}/push_notification/confirm/${partly}`, owner.cookie)).toContain(
      'Status: Partly delivered',
    )
  })
})
