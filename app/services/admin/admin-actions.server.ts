import { type Transaction } from 'sequelize'
import { resendConfirmation as mailConfirmationLink } from '#app/services/auth/auth.server.ts'
import { applyDueTransitions, choosePlan, confirmPayment, PlanError } from '#app/services/billing/billing.server.ts'
import { reconcileStaffSeats } from '#app/services/team/team.server.ts'
import { formatDate, periodText } from '#app/utils/plan-format.ts'
import { lockFeedbackHandling, setFeedbackHandling } from '#models/admin-feedback.server.ts'
import { getAdminUserProfile, getSubscriptionSnapshot } from '#models/admin-user-detail.server.ts'
import { getOpenInvoiceForUser, voidOpenInvoices } from '#models/invoice.server.ts'
import { deleteUserSessions } from '#models/session.server.ts'
import {
  addAdditionalQuota,
  endSubscriptionAt,
  ensureOwnerSubscription,
  getOwnerSubscription,
  recordStatusChange,
  setSubscriptionTrial,
  type OwnerSubscription,
} from '#models/subscription.server.ts'
import { withTransaction as inTransaction } from '#models/transaction.server.ts'
import { setUserDisabledAt } from '#models/user.server.ts'
import { writeAudit } from './audit.server.ts'

/**
 * The admin's actions on an account (issue #7), one function each, called by /admin/users/{userId}. Each records
 * who did what, with the record before and after, in the audit log, inside the change's own transaction. Two use
 * the billing service, which owns its transaction (billing.server.ts): there the audit entry is written right
 * after the commit, from snapshots read just before and just after; the status history (actor_id) and the
 * invoice's paid_by record the admin in the same transaction as the change, so the "who" survives a crash between
 * the two writes.
 *
 * A refused action throws AdminActionError with the message (and the form field) to show.
 */
export class AdminActionError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message)
  }
}

type Target = { actorId: string; userId: string; now?: Date }
const DAY_MS = 24 * 60 * 60 * 1000

async function lockSubscription(userId: string, transaction: Transaction): Promise<OwnerSubscription> {
  const subscription = await getOwnerSubscription(userId, { transaction, lock: true })
  if (!subscription) throw new AdminActionError('This account has no subscription.')
  return subscription
}

/** Billing's own refusals (an invoice already paid, say) come back to the form like ours. */
async function asAdminError<T>(work: Promise<T>, field?: string): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (error instanceof PlanError) throw new AdminActionError(error.message, field)
    throw error
  }
}

/** The open invoice is paid: the owner becomes active on its plan for its period (billing.server.ts). */
export async function confirmInvoicePayment({
  actorId,
  userId,
  invoiceId,
  now = new Date(),
}: Target & { invoiceId: string }) {
  const invoice = await getOpenInvoiceForUser(userId)
  // The form names the invoice the admin saw: a newer invoice (the owner chose again) needs a fresh look.
  if (!invoice || invoice.id !== invoiceId)
    throw new AdminActionError('This invoice is no longer open. Check the page again.', 'invoiceId')
  const before = await getSubscriptionSnapshot(userId)
  const { periodEndsAt } = await asAdminError(confirmPayment({ invoiceId, actorId, now }), 'invoiceId')
  const after = await getSubscriptionSnapshot(userId)
  await writeAudit({
    actorId,
    action: 'payment.confirm',
    targetType: 'invoice',
    targetId: invoice.id,
    before: { invoice: { number: invoice.number, status: 'open' }, subscription: before },
    after: { invoice: { number: invoice.number, status: 'paid' }, subscription: after },
  })
  return `Payment of invoice ${invoice.number} confirmed: ${invoice.tariffName} is active until ${formatDate(periodEndsAt)}.`
}

/**
 * Changes the plan the way the owner would on /account/tariffs: an invoice for the new plan is issued and the
 * subscription waits for its payment (an active owner keeps the current plan until then). An admin never switches
 * a paid plan without an invoice, so what an owner pays always matches what they get; when the money has arrived,
 * "Confirm payment" activates it, as its own audited step.
 */
export async function changePlan({
  actorId,
  userId,
  tier,
  periodMonths,
  now = new Date(),
}: Target & { tier: number; periodMonths: 1 | 12 }) {
  await ensureOwnerSubscription(userId)
  const before = (await getSubscriptionSnapshot(userId))!
  if (before.status === 'active' && before.tier === tier && before.periodMonths === periodMonths) {
    throw new AdminActionError('This is already the owner’s plan.', 'tier')
  }
  const invoice = await asAdminError(choosePlan({ userId, tier, periodMonths, now }), 'tier')
  const after = (await getSubscriptionSnapshot(userId))!
  await writeAudit({
    actorId,
    action: 'plan.change',
    targetType: 'subscription',
    targetId: before.id,
    before,
    after: { ...after, requested: { tier, periodMonths } },
  })
  return before.status === 'active'
    ? `Invoice ${invoice.number} issued for plan ${tier}, ${periodText(periodMonths)}: the current plan stays until it is paid.`
    : `Invoice ${invoice.number} issued for plan ${tier}, ${periodText(periodMonths)}: waiting for payment.`
}

/**
 * Adds days to a trial, counted from its end or, when it is over, from now (so "7 days" always gives 7 days).
 * Only for owners who never paid: a paid plan has no trial to extend. A trial that ended unpaid starts again:
 * `trial`, or `waiting_payment` until the new end when an invoice is still open (a plan chosen in the trial).
 */
export async function extendTrial({ actorId, userId, days, now = new Date() }: Target & { days: number }) {
  await ensureOwnerSubscription(userId)
  // What time has made due is recorded first (the trial's end with its own cause), then the admin's change.
  await applyDueTransitions(userId, now)
  return inTransaction(async (transaction) => {
    const subscription = await lockSubscription(userId, transaction)
    if (subscription.periodStartsAt) {
      throw new AdminActionError(
        'This owner has paid for a plan, so there is no trial to extend. Grant messages or change the plan instead.',
        'days',
      )
    }
    const before = (await getSubscriptionSnapshot(userId, transaction))!
    const trialEndsAt = new Date(Math.max(subscription.trialEndsAt.getTime(), now.getTime()) + days * DAY_MS)
    const status =
      subscription.status === 'ended' ? (before.openInvoice ? 'waiting_payment' : 'trial') : subscription.status
    await setSubscriptionTrial(subscription, { trialEndsAt, status }, transaction)
    if (status !== subscription.status) {
      const cause = `trial extended by an admin by ${days} days`
      await recordStatusChange(
        { subscriptionId: subscription.id, from: subscription.status, to: status, cause, actorId, at: now },
        transaction,
      )
    }
    await reconcileStaffSeats(userId, transaction)
    const after = await getSubscriptionSnapshot(userId, transaction)
    await writeAudit(
      {
        actorId,
        action: 'trial.extend',
        targetType: 'subscription',
        targetId: subscription.id,
        before,
        after: { ...after, days },
      },
      transaction,
    )
    return `Trial extended by ${days} days, until ${formatDate(trialEndsAt)}.`
  })
}

/**
 * Extra push messages on top of the monthly quota; they never expire (docs/product/plans-and-limits.md, "Push quota").
 */
export async function grantQuota({ actorId, userId, messages }: Target & { messages: number }) {
  await ensureOwnerSubscription(userId)
  return inTransaction(async (transaction) => {
    const subscription = await lockSubscription(userId, transaction)
    const before = (await getSubscriptionSnapshot(userId, transaction))!
    await addAdditionalQuota(subscription, messages, transaction)
    const after = (await getSubscriptionSnapshot(userId, transaction))!
    await writeAudit(
      {
        actorId,
        action: 'quota.grant',
        targetType: 'subscription',
        targetId: subscription.id,
        before,
        after: { ...after, granted: messages },
      },
      transaction,
    )
    return `${messages} additional push messages granted: ${after.additionalQuota} available.`
  })
}

/**
 * Ends the subscription now, whatever its state: access stops, an open invoice is void (nothing is owed for a plan
 * that was ended for the owner), and the dates say so. Choosing a plan again starts over (ended → waiting_payment).
 */
export async function endSubscription({ actorId, userId, now = new Date() }: Target) {
  await ensureOwnerSubscription(userId)
  await applyDueTransitions(userId, now)
  return inTransaction(async (transaction) => {
    const subscription = await lockSubscription(userId, transaction)
    if (subscription.status === 'ended') throw new AdminActionError('This subscription has already ended.')
    const before = (await getSubscriptionSnapshot(userId, transaction))!
    await voidOpenInvoices(subscription.id, transaction)
    await endSubscriptionAt(subscription, now, transaction)
    await recordStatusChange(
      {
        subscriptionId: subscription.id,
        from: subscription.status,
        to: 'ended',
        cause: 'ended by admin',
        actorId,
        at: now,
      },
      transaction,
    )
    // A plan that ends keeps its seats: staff keep stamping (docs/product/staff-locations-rules.md, "Seats"). Fitting
    // again changes nothing then.
    await reconcileStaffSeats(userId, transaction)
    const after = await getSubscriptionSnapshot(userId, transaction)
    await writeAudit(
      { actorId, action: 'subscription.end', targetType: 'subscription', targetId: subscription.id, before, after },
      transaction,
    )
    return 'The subscription has ended.'
  })
}

/**
 * Mails a new confirmation link (auth.server.ts, which voids the older links). The limit of resends per e-mail
 * address still applies, so not even an admin can flood an inbox; the per-IP limit counts per admin instead.
 */
export async function resendConfirmation({ actorId, userId }: Target) {
  const user = await requireProfile(userId)
  if (user.emailConfirmedAt) throw new AdminActionError('This e-mail address is already confirmed.')
  if (user.disabledAt) throw new AdminActionError('This account is disabled: enable it first.')
  // Its invitation is the way in: choosing a password from it confirms the address.
  if (user.isPremade)
    throw new AdminActionError('A pre-made account confirms its address when the owner chooses a password.')
  // Accepting the invitation confirms the address; a confirmation link would let the invitee around it.
  if (user.role === 'staff' && !user.hasPassword)
    throw new AdminActionError('A staff invitee confirms their address by accepting the invitation.')
  await mailConfirmationLink({ email: user.email, ip: `admin:${actorId}` })
  // Written after the mail is queued (the outbox is its own write): an entry always means a mail went out.
  await writeAudit({
    actorId,
    action: 'email.resend_confirmation',
    targetType: 'user',
    targetId: userId,
    before: { emailConfirmed: false },
    after: { emailConfirmed: false, confirmationMailedTo: user.email },
  })
  return `A new confirmation link was sent to ${user.email}.`
}

async function requireProfile(userId: string, transaction?: Transaction) {
  const user = await getAdminUserProfile(userId, transaction)
  if (!user) throw new AdminActionError('This account no longer exists.')
  return user
}

/**
 * A disabled account cannot sign in, and its sessions stop working at once (the session lookup checks
 * disabled_at); they are also deleted, after the commit, so enabling the account again does not revive them.
 */
export async function disableAccount({ actorId, userId, now = new Date() }: Target) {
  if (userId === actorId) throw new AdminActionError('You cannot disable your own account.')
  const email = await inTransaction(async (transaction) => {
    const user = await requireProfile(userId, transaction)
    if (!(await setUserDisabledAt(userId, now, transaction))) {
      throw new AdminActionError('This account is already disabled.')
    }
    await writeAudit(
      {
        actorId,
        action: 'account.disable',
        targetType: 'user',
        targetId: userId,
        before: { disabledAt: null },
        after: { disabledAt: now },
      },
      transaction,
    )
    return user.email
  })
  // After the commit: inside the transaction, a second connection would wait forever on the embedded database.
  await deleteUserSessions(userId)
  return `${email} is disabled and signed out everywhere.`
}

export async function enableAccount({ actorId, userId }: Target) {
  return inTransaction(async (transaction) => {
    const user = await requireProfile(userId, transaction)
    if (!(await setUserDisabledAt(userId, null, transaction))) {
      throw new AdminActionError('This account is not disabled.')
    }
    await writeAudit(
      {
        actorId,
        action: 'account.enable',
        targetType: 'user',
        targetId: userId,
        before: { disabledAt: user.disabledAt },
        after: { disabledAt: null },
      },
      transaction,
    )
    return `${user.email} can sign in again.`
  })
}

/** Marks a feedback message handled (by this admin, now) or open again; false when it already was so. */
export async function setFeedbackHandled({
  actorId,
  messageId,
  handled,
  now = new Date(),
}: {
  actorId: string
  messageId: string
  handled: boolean
  now?: Date
}) {
  return inTransaction(async (transaction) => {
    const before = await lockFeedbackHandling(messageId, transaction)
    if (!before) throw new AdminActionError('This message no longer exists.', 'messageId')
    if ((before.handledAt !== null) === handled) return false
    const after = handled ? { handledAt: now, handledBy: actorId } : { handledAt: null, handledBy: null }
    await setFeedbackHandling(messageId, after, transaction)
    const action = handled ? 'feedback.handle' : 'feedback.reopen'
    await writeAudit({ actorId, action, targetType: 'feedback', targetId: messageId, before, after }, transaction)
    return true
  })
}
