import { type Transaction } from 'sequelize'
import { nextInvoiceNumber, type InvoiceReason } from '#models/invoice.server.ts'
import { raiseNotice } from '#models/notice.server.ts'
import { getOwnerSubscription, recordStatusChange, type OwnerSubscription } from '#models/subscription.server.ts'
import { getSequelize } from '#app/server/db.server.ts'
import { addMonths, dueTransitions, planState, type SubscriptionStatus } from '#app/utils/plan-status.ts'

/**
 * The plan rules of DECISIONS.md ("Plans, trial and limits"): every change of a subscription goes through here,
 * whether an owner's click, an admin's action or the scheduled job causes it. Each runs in one transaction on the
 * locked subscription row, so two requests cannot interleave, and records the transition with its time and cause.
 */
export class PlanError extends Error {}

type Tx = { transaction: Transaction }

async function lockedSubscription(userId: string, { transaction }: Tx): Promise<OwnerSubscription> {
  const subscription = await getOwnerSubscription(userId, { transaction, lock: true })
  if (!subscription) throw new PlanError('This account has no subscription.')
  return subscription
}

async function setStatus(
  subscription: OwnerSubscription,
  change: { to: SubscriptionStatus; cause: string; at: Date; actorId?: string | null; fields?: Record<string, unknown> },
  { transaction }: Tx,
) {
  const fields = { ...change.fields, status: change.to }
  const assignments = Object.keys(fields).map((key) => `${key} = :${key}`)
  await getSequelize().query(
    `update subscriptions set ${assignments.join(', ')}, updated_at = now() where id = :id`,
    { replacements: { ...fields, id: subscription.id }, transaction },
  )
  if (subscription.status !== change.to) {
    await recordStatusChange(
      { subscriptionId: subscription.id, from: subscription.status, to: change.to, cause: change.cause, actorId: change.actorId, at: change.at },
      transaction,
    )
  }
}

async function issueInvoice(
  input: { subscriptionId: string; tariffId: number; periodMonths: 1 | 12; reason: InvoiceReason; now: Date },
  { transaction }: Tx,
) {
  // At most one open invoice: choosing again replaces the previous one.
  await getSequelize().query(
    `update invoices set status = 'void', updated_at = now() where subscription_id = :subscriptionId and status = 'open'`,
    { replacements: input, transaction },
  )
  const number = await nextInvoiceNumber(input.now, transaction)
  const [rows] = (await getSequelize().query(
    `insert into invoices (number, subscription_id, tariff_id, period_months, amount_cents, reason, created_at, updated_at)
     select :number, :subscriptionId, t.id, :periodMonths,
            case when :periodMonths = 12 then t.yearly_price_cents else t.monthly_price_cents end, :reason, :now, :now
     from tariffs t where t.id = :tariffId
     returning id, number`,
    { replacements: { ...input, number }, transaction },
  )) as [{ id: string; number: string }[], unknown]
  return rows[0]!
}

/** Applies what time has made due (trial or period over, renewal invoice, grace over), oldest first. */
async function applyDue(subscription: OwnerSubscription, now: Date, tx: Tx): Promise<OwnerSubscription> {
  const { transitions } = dueTransitions(subscription, now)
  let current = subscription
  for (const transition of transitions) {
    const fields: Record<string, unknown> = {}
    if (transition.issuesRenewalInvoice) {
      const [row] = (await getSequelize().query(
        `select tariff_id, period_months from subscriptions where id = :id`,
        { replacements: { id: current.id }, transaction: tx.transaction },
      )) as [{ tariff_id: number; period_months: 1 | 12 }[], unknown]
      await issueInvoice(
        { subscriptionId: current.id, tariffId: row[0]!.tariff_id, periodMonths: row[0]!.period_months, reason: 'renewal', now: transition.at },
        tx,
      )
      fields.access_ends_at = new Date(transition.at.getTime() + 7 * 24 * 60 * 60 * 1000)
    }
    await setStatus(current, { ...transition, fields }, tx)
    current = { ...current, status: transition.to, accessEndsAt: (fields.access_ends_at as Date) ?? current.accessEndsAt }
  }
  return current
}

export function withTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  return getSequelize().transaction((transaction) => work({ transaction }))
}

/**
 * The owner chooses a plan: an invoice is issued and the subscription waits for its payment. Access continues
 * while it waits inside the trial (or a cancelled period) it began in; an active owner changing plan keeps the
 * current plan until the new invoice is paid.
 */
export async function choosePlan({ userId, tier, periodMonths, now = new Date() }: { userId: string; tier: number; periodMonths: 1 | 12; now?: Date }) {
  return withTransaction(async (tx) => {
    const subscription = await applyDue(await lockedSubscription(userId, tx), now, tx)
    const [tariffs] = (await getSequelize().query(`select id from tariffs where tier = :tier`, {
      replacements: { tier },
      transaction: tx.transaction,
    })) as [{ id: number }[], unknown]
    const tariffId = tariffs[0]?.id
    if (!tariffId) throw new PlanError('This plan does not exist.')
    const state = planState(subscription, now)
    const changing = subscription.status === 'active'
    const invoice = await issueInvoice(
      { subscriptionId: subscription.id, tariffId, periodMonths, reason: changing ? 'change' : 'new', now },
      tx,
    )
    if (!changing) {
      const accessEndsAt =
        subscription.status === 'trial' || (subscription.status === 'waiting_payment' && state.inTrial)
          ? subscription.trialEndsAt
          : subscription.status === 'cancelled'
            ? subscription.periodEndsAt
            : subscription.status === 'waiting_payment'
              ? subscription.accessEndsAt
              : null
      // While waiting, the chosen plan is shown, but limits stay those of the trial or the paid period.
      await setStatus(
        subscription,
        {
          to: 'waiting_payment',
          at: now,
          cause: `plan chosen: ${tier}/${periodMonths} months, invoice ${invoice.number}`,
          fields: { access_ends_at: accessEndsAt, ...(subscription.periodStartsAt ? {} : { tariff_id: tariffId, period_months: periodMonths }) },
        },
        tx,
      )
    }
    return invoice
  })
}

/**
 * An admin marks an invoice paid: the subscription becomes active on the invoiced plan for the invoiced period.
 * A renewal continues from the end of the paid period; anything else starts now.
 */
export async function confirmPayment({ invoiceId, actorId, now = new Date() }: { invoiceId: string; actorId: string | null; now?: Date }) {
  return withTransaction(async (tx) => {
    const [invoices] = (await getSequelize().query(
      `select i.id, i.number, i.status, i.reason, i.tariff_id, i.period_months, s.user_id, t.name as tariff_name
       from invoices i join subscriptions s on s.id = i.subscription_id join tariffs t on t.id = i.tariff_id
       where i.id = :invoiceId`,
      { replacements: { invoiceId }, transaction: tx.transaction },
    )) as [{ id: string; number: string; status: string; reason: InvoiceReason; tariff_id: number; period_months: 1 | 12; user_id: string; tariff_name: string }[], unknown]
    const invoice = invoices[0]
    if (!invoice) throw new PlanError('Invoice not found.')
    if (invoice.status !== 'open') throw new PlanError(`Invoice ${invoice.number} is ${invoice.status}, not open.`)
    const subscription = await applyDue(await lockedSubscription(invoice.user_id, tx), now, tx)
    const renewalFrom = invoice.reason === 'renewal' && subscription.periodEndsAt ? subscription.periodEndsAt : null
    const startsAt = renewalFrom && renewalFrom.getTime() + 7 * 24 * 60 * 60 * 1000 > now.getTime() ? renewalFrom : now
    const endsAt = addMonths(startsAt, invoice.period_months)
    await getSequelize().query(
      `update invoices set status = 'paid', paid_at = :now, paid_by = :actorId, updated_at = now() where id = :id`,
      { replacements: { id: invoice.id, now, actorId }, transaction: tx.transaction },
    )
    await setStatus(
      subscription,
      {
        to: 'active',
        at: now,
        actorId,
        cause: `payment confirmed: invoice ${invoice.number}`,
        fields: {
          tariff_id: invoice.tariff_id,
          period_months: invoice.period_months,
          period_starts_at: startsAt,
          period_ends_at: endsAt,
          access_ends_at: null,
          cancelled_at: null,
        },
      },
      tx,
    )
    await raiseNotice(
      {
        userId: invoice.user_id,
        kind: 'payment_confirmed',
        message: `Payment received: your ${invoice.tariff_name} plan is active until ${endsAt.toISOString().slice(0, 10)}.`,
        link: '/account/plan',
        dedupeKey: `payment:${invoice.id}`,
      },
      tx.transaction,
    )
    return { userId: invoice.user_id, periodEndsAt: endsAt }
  })
}

/** The owner cancels an active plan: access continues until the paid period ends, then the plan ends. */
export async function cancelPlan({ userId, now = new Date() }: { userId: string; now?: Date }) {
  return withTransaction(async (tx) => {
    const subscription = await applyDue(await lockedSubscription(userId, tx), now, tx)
    if (subscription.status !== 'active') throw new PlanError('Only an active plan can be cancelled.')
    await getSequelize().query(
      `update invoices set status = 'void', updated_at = now() where subscription_id = :id and status = 'open'`,
      { replacements: { id: subscription.id }, transaction: tx.transaction },
    )
    await setStatus(subscription, { to: 'cancelled', at: now, cause: 'cancelled by the owner', fields: { cancelled_at: now } }, tx)
    return { periodEndsAt: subscription.periodEndsAt }
  })
}

/** Applies one owner's due transitions (the scheduled job's unit of work; also safe to call at any time). */
export async function applyDueTransitions(userId: string, now = new Date()) {
  return withTransaction(async (tx) => applyDue(await lockedSubscription(userId, tx), now, tx))
}
