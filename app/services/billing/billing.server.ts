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
import { stripeSyncedAt } from '#models/stripe-event.server.ts'
import {
  getOwnerSubscription,
  getSubscriptionPlan,
  recordStatusChange,
  setSubscriptionFields,
  type OwnerSubscription,
  type SubscriptionTransitionFields,
} from '#models/subscription.server.ts'
import { findTariffByTier, findTariffIdByTier } from '#models/tariff.server.ts'
import { withTransaction as inTransaction } from '#models/transaction.server.ts'
import { stripePlanTarget, type StripeSubscriptionState } from './stripe-mapping.ts'

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
    const fields: { access_ends_at?: Date } = transition.accessEndsAt ? { access_ends_at: transition.accessEndsAt } : {}
    if (transition.issuesRenewalInvoice) {
      const plan = (await getSubscriptionPlan(current, tx.transaction))!
      const { tariffId, periodMonths } = plan
      await issueInvoice(
        { subscriptionId: current.id, tariffId, periodMonths, reason: 'renewal', now: transition.at },
        tx,
      )
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

export type StripeApplied = {
  /** What the event did, in words, for the event's record and the admin's page. */
  outcome: string
  /** The plan now waits for a card payment that failed (it did not before): the owner is told by e-mail too. */
  paymentFailed: { plan: string; accessEndsAt: Date } | null
}

/**
 * Stripe's subscription as it is now (the webhook read it from Stripe at `readAt`) applied to the owner's plan,
 * in the caller's transaction (the one that records the event): the mapping of stripe-mapping.ts, then the same
 * transition rules as a manual payment (recorded with `cause`, 'stripe: invoice.paid' say). A read older than the
 * one last applied changes nothing, so two events of one subscription applied at once cannot leave the older state.
 */
export async function applyStripeSubscription(
  {
    userId,
    state,
    cause,
    failedAt = null,
    readAt,
    now = new Date(),
  }: {
    userId: string
    state: StripeSubscriptionState
    cause: string
    failedAt?: Date | null
    readAt: Date
    now?: Date
  },
  transaction: Transaction,
): Promise<StripeApplied> {
  const tx = { transaction }
  const locked = await lockedSubscription(userId, tx)
  const synced = await stripeSyncedAt(userId, transaction)
  if (synced && synced.getTime() > readAt.getTime()) {
    return { outcome: 'nothing: a newer state from Stripe was already applied', paymentFailed: null }
  }
  const subscription = await applyDue(locked, now, tx)
  const target = stripePlanTarget(state, {
    failedAt,
    accessEndsAt: subscription.status === 'waiting_payment' ? subscription.accessEndsAt : null,
    now,
  })
  if ('ignored' in target) return { outcome: `nothing: ${target.ignored}`, paymentFailed: null }
  const tariff = await findTariffByTier(target.tier, transaction)
  if (!tariff) return { outcome: `nothing: no plan of tier ${target.tier}`, paymentFailed: null }
  // Paying by card replaces a bank transfer the owner had chosen before: its invoice is void.
  if (target.status === 'active' || target.status === 'cancelled') await voidOpenInvoices(subscription.id, transaction)
  await setStatus(
    subscription,
    {
      to: target.status,
      at: now,
      cause,
      fields: {
        tariff_id: tariff.id,
        period_months: target.periodMonths,
        period_starts_at: target.periodStartsAt,
        period_ends_at: target.periodEndsAt,
        access_ends_at: target.accessEndsAt,
        cancelled_at: target.cancelledAt,
        provider: 'stripe',
        stripe_customer_id: state.customerId,
        stripe_subscription_id: state.id,
        stripe_synced_at: readAt,
      },
    },
    tx,
  )
  const day = (date: Date) => date.toISOString().slice(0, 10)
  const plan = tariff.name
  if (target.status === 'active' && subscription.status !== 'active') {
    await raiseNotice(
      {
        userId,
        kind: 'payment_confirmed',
        message: `Payment received: your ${plan} plan is active until ${day(target.periodEndsAt)}.`,
        link: '/account/plan',
        dedupeKey: `stripe:${state.id}:${target.periodEndsAt.getTime()}`,
      },
      transaction,
    )
  }
  const paymentFailed =
    target.status === 'waiting_payment' && subscription.status !== 'waiting_payment'
      ? { plan, accessEndsAt: target.accessEndsAt! }
      : null
  if (paymentFailed) {
    await raiseNotice(
      {
        userId,
        kind: 'payment_failed',
        message: `Your card payment failed: update your card by ${day(target.accessEndsAt!)} to keep your ${plan} plan.`,
        link: '/account/plan',
        dedupeKey: `stripe-failed:${state.id}:${target.accessEndsAt!.getTime()}`,
      },
      transaction,
    )
  }
  await reconcileStaffSeats(userId, transaction)
  const until = target.status === 'waiting_payment' ? target.accessEndsAt! : target.periodEndsAt
  const change =
    subscription.status === target.status ? `still ${target.status}` : `${subscription.status} → ${target.status}`
  return { outcome: `${change} (${plan}, until ${day(until)})`, paymentFailed }
}
