/**
 * The subscription's state as of a moment, computed from its stored status and dates (docs/product/plans-and-limits.md,
 * "Status transitions" and "Plan box"). Pure: the pages compute it on every read, and the scheduled job writes the same
 * transitions to the database, so nothing is stale after a restart and no page has to write on GET.
 */
import { formatDate } from './plan-format.ts'

export type SubscriptionStatus = 'trial' | 'active' | 'ended' | 'cancelled' | 'waiting_payment'

export const TRIAL_DAYS = 14
export const GRACE_DAYS = 7
export const TRIAL_LIMITS = { cardLimit: 3, monthlyPushLimit: 10 } as const
const DAY_MS = 24 * 60 * 60 * 1000

export type PlanTariff = { tier: number; name: string; cardLimit: number; monthlyPushLimit: number }

export type StoredSubscription = {
  status: SubscriptionStatus
  trialEndsAt: Date
  periodStartsAt: Date | null
  periodEndsAt: Date | null
  /** While waiting_payment: when access stops (the trial's or the grace period's end); null when there is none. */
  accessEndsAt: Date | null
  periodMonths: number | null
  additionalQuota: number
  tariff: PlanTariff | null
  /**
   * Who takes the payments: the bank transfer (`manual`, the default) or Stripe (docs/product/paying-by-card.md),
   * which renews the plan itself and reports it through its events.
   */
  provider?: 'manual' | 'stripe'
}

/**
 * A card subscription's period that ended with no word from Stripe (a renewal's event usually comes within the hour):
 * after this long the plan waits for payment, with the grace days counted from the period's end, so a webhook that
 * never arrives cannot keep a plan active for ever.
 */
export const STRIPE_RENEWAL_LEEWAY_MS = 24 * 60 * 60 * 1000

export type DueTransition = {
  to: SubscriptionStatus
  at: Date
  cause: string
  /** An active period ran out: the renewal invoice is issued and access continues for the grace days. */
  issuesRenewalInvoice?: boolean
  /** When access stops after this transition (a renewal's grace), where it sets one. */
  accessEndsAt?: Date
}

/** The transitions that time has made due, in order, and the subscription after them. */
export function dueTransitions(stored: StoredSubscription, now: Date) {
  const transitions: DueTransition[] = []
  let current = stored
  // At most three steps (active → waiting_payment → ended); the bound guards against a loop on bad data.
  for (let step = 0; step < 4; step += 1) {
    const next = nextTransition(current, now)
    if (!next) break
    transitions.push(next)
    current = {
      ...current,
      status: next.to,
      accessEndsAt: next.accessEndsAt ?? current.accessEndsAt,
    }
  }
  return { transitions, subscription: current }
}

function nextTransition(s: StoredSubscription, now: Date): DueTransition | null {
  const passed = (date: Date | null): date is Date => date !== null && date.getTime() <= now.getTime()
  switch (s.status) {
    case 'trial':
      return passed(s.trialEndsAt) ? { to: 'ended', at: s.trialEndsAt, cause: 'trial ended without a payment' } : null
    case 'waiting_payment':
      return passed(s.accessEndsAt)
        ? { to: 'ended', at: s.accessEndsAt, cause: 'invoice unpaid when access ended' }
        : null
    case 'cancelled':
      return passed(s.periodEndsAt)
        ? { to: 'ended', at: s.periodEndsAt, cause: 'cancelled plan reached its end' }
        : null
    case 'active':
      if (s.provider === 'stripe') {
        const noWord = s.periodEndsAt && new Date(s.periodEndsAt.getTime() + STRIPE_RENEWAL_LEEWAY_MS)
        return passed(noWord)
          ? {
              to: 'waiting_payment',
              at: noWord,
              cause: 'period ended: no renewal from Stripe',
              accessEndsAt: new Date(s.periodEndsAt!.getTime() + GRACE_DAYS * DAY_MS),
            }
          : null
      }
      return passed(s.periodEndsAt)
        ? {
            to: 'waiting_payment',
            at: s.periodEndsAt,
            cause: 'period ended: renewal invoice issued',
            issuesRenewalInvoice: true,
            accessEndsAt: new Date(s.periodEndsAt.getTime() + GRACE_DAYS * DAY_MS),
          }
        : null
    case 'ended':
      return null
  }
}

export type PlanState = {
  status: SubscriptionStatus
  /** Whole days of trial left (0 once over). */
  trialDays: number
  /** 1 while the owner has access (docs/product/plans-and-limits.md, "Plan box"). */
  subActiveFlag: 0 | 1
  /** In the free trial (including a plan chosen but not yet paid inside it): the menu hides "Plan details". */
  inTrial: boolean
  /** The plan whose limits apply, or null for the trial's limits or no access. */
  tariff: PlanTariff | null
  periodMonths: number | null
  periodEndsAt: Date | null
  accessEndsAt: Date | null
  everPaid: boolean
  additionalQuota: number
  cardLimit: number
  monthlyPushLimit: number
  /** The specification's gate: push pages are open while the owner has access or additional quota remains. */
  canUsePush: boolean
}

export function planState(stored: StoredSubscription, now: Date): PlanState {
  const s = dueTransitions(stored, now).subscription
  const trialLeftMs = s.trialEndsAt.getTime() - now.getTime()
  const trialDays = trialLeftMs > 0 ? Math.ceil(trialLeftMs / DAY_MS) : 0
  const everPaid = s.periodStartsAt !== null
  const waitingWithAccess = s.status === 'waiting_payment' && s.accessEndsAt !== null && s.accessEndsAt > now
  const hasAccess = s.status === 'trial' || s.status === 'active' || s.status === 'cancelled' || waitingWithAccess
  const inTrial = s.status === 'trial' || (s.status === 'waiting_payment' && trialDays > 0 && !everPaid)
  const paidPlanInForce = hasAccess && !inTrial && s.tariff !== null
  const limits = !hasAccess ? { cardLimit: 0, monthlyPushLimit: 0 } : paidPlanInForce ? s.tariff! : TRIAL_LIMITS
  return {
    status: s.status,
    trialDays,
    subActiveFlag: hasAccess ? 1 : 0,
    inTrial,
    tariff: s.tariff,
    periodMonths: s.periodMonths,
    periodEndsAt: s.periodEndsAt,
    accessEndsAt: s.status === 'waiting_payment' ? s.accessEndsAt : null,
    everPaid,
    additionalQuota: s.additionalQuota,
    cardLimit: limits.cardLimit,
    monthlyPushLimit: limits.monthlyPushLimit,
    canUsePush: hasAccess || s.additionalQuota > 0,
  }
}

export type PlanBox = { title: string; subtitle: string }

/** The plan box's two lines, with the exact texts of docs/product/plans-and-limits.md ("Plan box"). */
export function planBox(state: PlanState, product = 'Stampwise'): PlanBox {
  if (state.inTrial) {
    return { title: `${state.trialDays} days free trial left`, subtitle: 'Choose a plan for your business needs' }
  }
  if (!state.everPaid || !state.tariff) return { title: 'Trial over', subtitle: 'Upgrade your plan' }
  const title = `${state.tariff.name} Plan`
  if (state.status === 'active') {
    return { title, subtitle: state.periodMonths === 12 ? 'Renews yearly' : 'Renews monthly' }
  }
  if (state.status === 'cancelled' && state.periodEndsAt) {
    return { title, subtitle: `Ends on ${formatDate(state.periodEndsAt)}` }
  }
  return { title, subtitle: `Access to ${product} is limited` }
}

/** The first moment of the calendar month (UTC) that `now` falls in: monthly quotas count from here. */
export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
}

export function addMonths(date: Date, months: number): Date {
  const result = new Date(date)
  const day = result.getUTCDate()
  result.setUTCMonth(result.getUTCMonth() + months)
  // 31 January + 1 month is the last day of February, not 3 March.
  if (result.getUTCDate() !== day) result.setUTCDate(0)
  return result
}
