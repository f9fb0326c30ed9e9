import { type Transaction } from 'sequelize'
import { reconcileStaffSeats } from '#app/services/team/team.server.ts'
import { addMonths, dueTransitions, planState, type SubscriptionStatus } from '#app/utils/plan-status.ts'
import {
  getInvoiceForPayment,
  insertInvoice,
  markInvoicePaid,
  nextInvoiceNumber,
  voidOpenInvoices,
  type InvoiceReason,
} from '#models/invoice.server.ts'
import { raiseNotice } from '#models/notice.server.ts'
import {
  getOwnerSubscription,
  getSubscriptionPlan,
  recordStatusChange,
  setSubscriptionFields,
  type OwnerSubscription,
  type SubscriptionTransitionFields,
} from '#models/subscription.server.ts'
import { findTariffIdByTier } from '#models/tariff.server.ts'
import { withTransaction as inTransaction } from '#models/transaction.server.ts'

/**
 * The plan rules of docs/product/plans-and-limits.md: every change of a subscription goes through here,
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
  change: {
    to: SubscriptionStatus
    cause: string
    at: Date
    actorId?: string | null
    fields?: Omit<SubscriptionTransitionFields, 'status'>
  },
  { transaction }: Tx,
) {
  await setSubscriptionFields(subscription, { ...change.fields, status: change.to }, transaction)
  if (subscription.status !== change.to) {
    await recordStatusChange(
      {
        subscriptionId: subscription.id,
        from: subscription.status,
        to: change.to,
        cause: change.cause,
        actorId: change.actorId,
        at: change.at,
      },
      transaction,
    )
  }
}

async function issueInvoice(
  input: { subscriptionId: string; tariffId: number; periodMonths: 1 | 12; reason: InvoiceReason; now: Date },
  { transaction }: Tx,
) {
  // At most one open invoice: choosing again replaces the previous one.
  await voidOpenInvoices(input.subscriptionId, transaction)
  const number = await nextInvoiceNumber(input.now, transaction)
  return insertInvoice({ ...input, number }, transaction)
}

/** Applies what time has made due (trial or period over, renewal invoice, grace over), oldest first. */
async function applyDue(subscription: OwnerSubscription, now: Date, tx: Tx): Promise<OwnerSubscription> {
  const { transitions } = dueTransitions(subscription, now)
  let current = subscription
  for (const transition of transitions) {
    const fields: { access_ends_at?: Date } = {}
    if (transition.issuesRenewalInvoice) {
      const plan = (await getSubscriptionPlan(current, tx.transaction))!
      const { tariffId, periodMonths } = plan
      await issueInvoice(
        { subscriptionId: current.id, tariffId, periodMonths, reason: 'renewal', now: transition.at },
        tx,
      )
      fields.access_ends_at = new Date(transition.at.getTime() + 7 * 24 * 60 * 60 * 1000)
    }
    await setStatus(current, { ...transition, fields }, tx)
    current = { ...current, status: transition.to, accessEndsAt: fields.access_ends_at ?? current.accessEndsAt }
  }
  return current
}

function withTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  return inTransaction((transaction) => work({ transaction }))
}

/**
 * The owner chooses a plan: an invoice is issued and the subscription waits for its payment. Access continues
 * while it waits inside the trial (or a cancelled period) it began in; an active owner changing plan keeps the
 * current plan until the new invoice is paid.
 */
export async function choosePlan({
  userId,
  tier,
  periodMonths,
  now = new Date(),
}: {
  userId: string
  tier: number
  periodMonths: 1 | 12
  now?: Date
}) {
  return withTransaction(async (tx) => {
    const subscription = await applyDue(await lockedSubscription(userId, tx), now, tx)
    const tariffId = await findTariffIdByTier(tier, tx.transaction)
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
          fields: {
            access_ends_at: accessEndsAt,
            ...(subscription.periodStartsAt ? {} : { tariff_id: tariffId, period_months: periodMonths }),
          },
        },
        tx,
      )
    }
    await reconcileStaffSeats(userId, tx.transaction)
    return invoice
  })
}

/**
 * An admin marks an invoice paid: the subscription becomes active on the invoiced plan for the invoiced period.
 * A renewal continues from the end of the paid period; anything else starts now.
 */
export async function confirmPayment({
  invoiceId,
  actorId,
  now = new Date(),
}: {
  invoiceId: string
  actorId: string | null
  now?: Date
}) {
  return withTransaction(async (tx) => {
    const invoice = await getInvoiceForPayment(invoiceId, tx.transaction)
    if (!invoice) throw new PlanError('Invoice not found.')
    if (invoice.status !== 'open') throw new PlanError(`Invoice ${invoice.number} is ${invoice.status}, not open.`)
    const subscription = await applyDue(await lockedSubscription(invoice.userId, tx), now, tx)
    const renewalFrom = invoice.reason === 'renewal' && subscription.periodEndsAt ? subscription.periodEndsAt : null
    const startsAt = renewalFrom && renewalFrom.getTime() + 7 * 24 * 60 * 60 * 1000 > now.getTime() ? renewalFrom : now
    const endsAt = addMonths(startsAt, invoice.periodMonths)
    await markInvoicePaid({ invoiceId: invoice.id, now, actorId }, tx.transaction)
    await setStatus(
      subscription,
      {
        to: 'active',
        at: now,
        actorId,
        cause: `payment confirmed: invoice ${invoice.number}`,
        fields: {
          tariff_id: invoice.tariffId,
          period_months: invoice.periodMonths,
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
        userId: invoice.userId,
        kind: 'payment_confirmed',
        message: `Payment received: your ${invoice.tariffName} plan is active until ${endsAt.toISOString().slice(0, 10)}.`,
        link: '/account/plan',
        dedupeKey: `payment:${invoice.id}`,
      },
      tx.transaction,
    )
    // The plan paid for sets the staff seats: a downgrade suspends the newest beyond them, an upgrade restores.
    await reconcileStaffSeats(invoice.userId, tx.transaction)
    return { userId: invoice.userId, periodEndsAt: endsAt }
  })
}

/** The owner cancels an active plan: access continues until the paid period ends, then the plan ends. */
export async function cancelPlan({ userId, now = new Date() }: { userId: string; now?: Date }) {
  return withTransaction(async (tx) => {
    const subscription = await applyDue(await lockedSubscription(userId, tx), now, tx)
    if (subscription.status !== 'active') throw new PlanError('Only an active plan can be cancelled.')
    await voidOpenInvoices(subscription.id, tx.transaction)
    await setStatus(
      subscription,
      { to: 'cancelled', at: now, cause: 'cancelled by the owner', fields: { cancelled_at: now } },
      tx,
    )
    await reconcileStaffSeats(userId, tx.transaction)
    return { periodEndsAt: subscription.periodEndsAt }
  })
}

/** Applies one owner's due transitions (the scheduled job's unit of work; also safe to call at any time). */
export async function applyDueTransitions(userId: string, now = new Date()) {
  return withTransaction(async (tx) => {
    const subscription = await applyDue(await lockedSubscription(userId, tx), now, tx)
    // An end keeps the seats (staff keep stamping); fitting again changes nothing then, and is cheap.
    await reconcileStaffSeats(userId, tx.transaction)
    return subscription
  })
}
