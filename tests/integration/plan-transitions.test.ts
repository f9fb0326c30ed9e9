import { afterAll, describe, expect, test } from 'vitest'
import { startJobs } from '#app/main/jobs.server.ts'
import {
  applyDueTransitions,
  cancelPlan,
  choosePlan,
  confirmPayment,
  PlanError,
} from '#app/services/billing/billing.server.ts'
import { runPlanHousekeeping } from '#app/services/billing/plan-housekeeping.server.ts'
import { planBox, planState } from '#app/utils/plan-status.ts'
import { getOpenInvoiceForUser } from '#models/invoice.server.ts'
import { getOwnerSubscription } from '#models/subscription.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'

/**
 * Every transition of the status diagram in docs/product/plans-and-limits.md, on the real database, with
 * time passed in explicitly: trial → waiting_payment → active → cancelled → ended, the unpaid ends, the renewal
 * with its grace days, a plan change, and the scheduled job catching up after a restart.
 */
const DAY = 24 * 60 * 60 * 1000
const T0 = new Date('2026-11-26T10:00:00Z')
const at = (days: number) => new Date(T0.getTime() + days * DAY)

async function ownerOnTrial(trialEndsAt = at(14)) {
  const owner = await createOwner()
  await sql(`update subscriptions set trial_ends_at = :trialEndsAt, created_at = :created where user_id = :id`, {
    id: owner.id,
    trialEndsAt,
    created: at(0),
  })
  return owner
}

async function stored(userId: string) {
  const [row] = await sql<{
    status: string
    tariff: string | null
    period_starts_at: Date | null
    period_ends_at: Date | null
    access_ends_at: Date | null
  }>(
    `select s.status, t.name as tariff, s.period_starts_at, s.period_ends_at, s.access_ends_at
     from subscriptions s left join tariffs t on t.id = s.tariff_id where s.user_id = :userId`,
    { userId },
  )
  return row!
}

async function history(userId: string) {
  const rows = await sql<{ from_status: string | null; to_status: string; cause: string }>(
    `select c.from_status, c.to_status, c.cause from subscription_status_changes c
     join subscriptions s on s.id = c.subscription_id where s.user_id = :userId order by c.id`,
    { userId },
  )
  return rows.map((row) => `${row.from_status ?? '∅'}→${row.to_status}`)
}

async function box(userId: string, now: Date) {
  return planBox(planState((await getOwnerSubscription(userId))!, now))
}

describe('the status diagram', () => {
  test('trial → waiting_payment → active → cancelled → ended, each recorded with its cause', async () => {
    const owner = await ownerOnTrial()
    const invoice = await choosePlan({ userId: owner.id, tier: 2, periodMonths: 1, now: at(3) })
    expect(invoice.number).toMatch(/^SW-2026-\d{6}$/)
    expect(await stored(owner.id)).toMatchObject({
      status: 'waiting_payment',
      tariff: 'Standard',
      access_ends_at: at(14),
    })
    // Chosen inside the trial: the box still counts the trial down.
    expect(await box(owner.id, at(3))).toEqual({
      title: '11 days free trial left',
      subtitle: 'Choose a plan for your business needs',
    })
    const open = await getOpenInvoiceForUser(owner.id)
    expect(open).toMatchObject({
      number: invoice.number,
      amountCents: 3900,
      periodMonths: 1,
      tariffName: 'Standard',
      status: 'open',
    })

    await confirmPayment({ invoiceId: open!.id, actorId: null, now: at(4) })
    expect(await stored(owner.id)).toMatchObject({
      status: 'active',
      period_starts_at: at(4),
      period_ends_at: new Date('2026-12-30T10:00:00Z'),
      access_ends_at: null,
    })
    expect(await box(owner.id, at(5))).toEqual({ title: 'Standard Plan', subtitle: 'Renews monthly' })
    const [notice] = await sql<{ kind: string; link: string }>(`select kind, link from notices where user_id = :id`, {
      id: owner.id,
    })
    expect(notice).toEqual({ kind: 'payment_confirmed', link: '/account/plan' })

    await cancelPlan({ userId: owner.id, now: at(10) })
    expect(await box(owner.id, at(10))).toEqual({ title: 'Standard Plan', subtitle: 'Ends on 30 December 2026' })
    // Before the end nothing is due; after it, the job ends the plan.
    expect((await runPlanHousekeeping(at(20))).applied).toBe(0)
    expect((await stored(owner.id)).status).toBe('cancelled')
    await runPlanHousekeeping(at(40))
    expect((await stored(owner.id)).status).toBe('ended')
    expect(await box(owner.id, at(40))).toEqual({ title: 'Standard Plan', subtitle: 'Access to Stampwise is limited' })
    expect(await history(owner.id)).toEqual([
      '∅→trial',
      'trial→waiting_payment',
      'waiting_payment→active',
      'active→cancelled',
      'cancelled→ended',
    ])
    const causes = await sql<{ cause: string }>(
      `select cause from subscription_status_changes c join subscriptions s on s.id = c.subscription_id where s.user_id = :id order by c.id`,
      { id: owner.id },
    )
    expect(causes.map((row) => row.cause)).toEqual([
      'test owner',
      `plan chosen: 2/1 months, invoice ${invoice.number}`,
      `payment confirmed: invoice ${invoice.number}`,
      'cancelled by the owner',
      'cancelled plan reached its end',
    ])
  })

  test('trial → ended when 14 days pass without a payment', async () => {
    const owner = await ownerOnTrial()
    expect(await box(owner.id, at(15))).toEqual({ title: 'Trial over', subtitle: 'Upgrade your plan' })
    expect((await stored(owner.id)).status).toBe('trial') // pages compute; the job writes
    await runPlanHousekeeping(at(15))
    expect(await stored(owner.id)).toMatchObject({ status: 'ended' })
    expect(await history(owner.id)).toEqual(['∅→trial', 'trial→ended'])
  })

  test('waiting_payment → ended when the trial it began in runs out unpaid; a late payment still activates', async () => {
    const owner = await ownerOnTrial()
    await choosePlan({ userId: owner.id, tier: 1, periodMonths: 12, now: at(13) })
    await runPlanHousekeeping(at(14.5))
    expect((await stored(owner.id)).status).toBe('ended')
    const invoice = await getOpenInvoiceForUser(owner.id)
    expect(invoice).toMatchObject({ amountCents: 19000, periodMonths: 12 })
    await confirmPayment({ invoiceId: invoice!.id, actorId: null, now: at(16) })
    expect(await stored(owner.id)).toMatchObject({ status: 'active', period_ends_at: new Date('2027-12-12T10:00:00Z') })
    expect(await box(owner.id, at(17))).toEqual({ title: 'Basic Plan', subtitle: 'Renews yearly' })
    expect(await history(owner.id)).toEqual([
      '∅→trial',
      'trial→waiting_payment',
      'waiting_payment→ended',
      'ended→active',
    ])
  })

  test('ended → waiting_payment when a plan is chosen again, without access until it is paid', async () => {
    const owner = await ownerOnTrial(at(-1))
    await applyDueTransitions(owner.id, at(0))
    await choosePlan({ userId: owner.id, tier: 3, periodMonths: 1, now: at(1) })
    const state = planState((await getOwnerSubscription(owner.id))!, at(30))
    expect(state).toMatchObject({ status: 'waiting_payment', subActiveFlag: 0, canUsePush: false, cardLimit: 0 })
    expect(planBox(state)).toEqual({ title: 'Trial over', subtitle: 'Upgrade your plan' })
    // Choosing again replaces the open invoice: at most one is open.
    await choosePlan({ userId: owner.id, tier: 2, periodMonths: 1, now: at(2) })
    const invoices = await sql<{ status: string }>(
      `select i.status from invoices i join subscriptions s on s.id = i.subscription_id where s.user_id = :id order by i.created_at`,
      { id: owner.id },
    )
    expect(invoices.map((row) => row.status)).toEqual(['void', 'open'])
    expect(await history(owner.id)).toEqual(['∅→trial', 'trial→ended', 'ended→waiting_payment'])
  })

  test('active → waiting_payment at the period end with a renewal invoice, 7 days of grace, then ended', async () => {
    const owner = await ownerOnTrial()
    await choosePlan({ userId: owner.id, tier: 2, periodMonths: 1, now: at(1) })
    await confirmPayment({ invoiceId: (await getOpenInvoiceForUser(owner.id))!.id, actorId: null, now: at(1) })
    const periodEnd = (await stored(owner.id)).period_ends_at!
    const afterEnd = new Date(periodEnd.getTime() + 2 * DAY)
    await runPlanHousekeeping(afterEnd)
    expect(await stored(owner.id)).toMatchObject({
      status: 'waiting_payment',
      access_ends_at: new Date(periodEnd.getTime() + 7 * DAY),
    })
    const renewal = await getOpenInvoiceForUser(owner.id)
    expect(renewal).toMatchObject({ reason: 'renewal', tariffName: 'Standard', amountCents: 3900 })
    expect(planState((await getOwnerSubscription(owner.id))!, afterEnd)).toMatchObject({
      subActiveFlag: 1,
      cardLimit: 3,
    })
    await runPlanHousekeeping(new Date(periodEnd.getTime() + 8 * DAY))
    expect((await stored(owner.id)).status).toBe('ended')
    expect(await history(owner.id)).toEqual([
      '∅→trial',
      'trial→waiting_payment',
      'waiting_payment→active',
      'active→waiting_payment',
      'waiting_payment→ended',
    ])
  })

  test('a renewal paid inside the grace days continues from the end of the paid period', async () => {
    const owner = await ownerOnTrial()
    await choosePlan({ userId: owner.id, tier: 1, periodMonths: 1, now: at(1) })
    await confirmPayment({ invoiceId: (await getOpenInvoiceForUser(owner.id))!.id, actorId: null, now: at(1) })
    const periodEnd = (await stored(owner.id)).period_ends_at!
    await runPlanHousekeeping(new Date(periodEnd.getTime() + DAY))
    const renewal = await getOpenInvoiceForUser(owner.id)
    await confirmPayment({ invoiceId: renewal!.id, actorId: null, now: new Date(periodEnd.getTime() + 3 * DAY) })
    const after = await stored(owner.id)
    expect(after).toMatchObject({ status: 'active', period_starts_at: periodEnd })
    expect(after.period_ends_at!.toISOString().slice(0, 10)).toBe('2027-01-27')
  })

  test('an active owner changing plan keeps the current plan until the new invoice is paid', async () => {
    const owner = await ownerOnTrial()
    await choosePlan({ userId: owner.id, tier: 1, periodMonths: 1, now: at(1) })
    await confirmPayment({ invoiceId: (await getOpenInvoiceForUser(owner.id))!.id, actorId: null, now: at(1) })
    await choosePlan({ userId: owner.id, tier: 3, periodMonths: 12, now: at(5) })
    expect(await stored(owner.id)).toMatchObject({ status: 'active', tariff: 'Basic' })
    expect(await getOpenInvoiceForUser(owner.id)).toMatchObject({
      reason: 'change',
      tariffName: 'Premium',
      amountCents: 79000,
    })
    await confirmPayment({ invoiceId: (await getOpenInvoiceForUser(owner.id))!.id, actorId: null, now: at(6) })
    expect(await stored(owner.id)).toMatchObject({ status: 'active', tariff: 'Premium', period_starts_at: at(6) })
  })

  test('refusals: cancelling without an active plan, paying a paid invoice, an unknown plan', async () => {
    const owner = await ownerOnTrial()
    await expect(cancelPlan({ userId: owner.id, now: at(1) })).rejects.toThrow(PlanError)
    await expect(choosePlan({ userId: owner.id, tier: 4, periodMonths: 1, now: at(1) })).rejects.toThrow(
      'This plan does not exist.',
    )
    await choosePlan({ userId: owner.id, tier: 1, periodMonths: 1, now: at(1) })
    const invoice = (await getOpenInvoiceForUser(owner.id))!
    await confirmPayment({ invoiceId: invoice.id, actorId: null, now: at(1) })
    await expect(confirmPayment({ invoiceId: invoice.id, actorId: null, now: at(2) })).rejects.toThrow(
      /is paid, not open/,
    )
  })
})

describe('the scheduled job', () => {
  test('raises each ending notice once, 3 days ahead', async () => {
    const owner = await ownerOnTrial(at(2))
    await runPlanHousekeeping(at(0))
    await runPlanHousekeeping(at(0.5))
    const notices = await sql<{ kind: string; message: string }>(
      `select kind, message from notices where user_id = :id`,
      { id: owner.id },
    )
    expect(notices).toEqual([
      {
        kind: 'trial_ending',
        message: 'Your free trial ends on 28 November 2026. Choose a plan to keep sending push messages.',
      },
    ])
  })

  const jobs: { stop: () => Promise<void> }[] = []
  afterAll(async () => {
    await Promise.all(jobs.map((job) => job.stop()))
  })

  test('after a restart, pg-boss catches up at once: a trial that ended while the process was down is ended', async () => {
    const first = await startJobs()
    jobs.push(first)
    await first.stop()
    jobs.pop()
    // While "down", the trial ran out.
    const owner = await ownerOnTrial(new Date(Date.now() - DAY))
    const second = await startJobs()
    jobs.push(second)
    await expect.poll(async () => (await stored(owner.id)).status, { timeout: 20_000, interval: 250 }).toBe('ended')
    // Scheduled once however many times the queue started (the push resume and wallet jobs have their own).
    const schedules = await sql<{ name: string; cron: string }>(`select name, cron from pgboss.schedule order by name`)
    expect(schedules).toEqual([
      { name: 'automations', cron: '* * * * *' },
      { name: 'plan-housekeeping', cron: '*/5 * * * *' },
      { name: 'push-resume', cron: '* * * * *' },
      { name: 'scheduled-broadcasts', cron: '* * * * *' },
      { name: 'wallet-housekeeping', cron: '17 * * * *' },
    ])
  })
})
