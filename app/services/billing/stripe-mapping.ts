import { GRACE_DAYS, type SubscriptionStatus } from '#app/utils/plan-status.ts'

/**
 * What a Stripe subscription, as Stripe has it now, means for the owner's plan (docs/product/paying-by-card.md,
 * "Mapping"): `active`/`trialing` are active until the period's end, or cancelled until then when set to cancel at
 * its end; `past_due`/`unpaid` wait for payment with 7 days of grace from the failed invoice; `canceled` has ended.
 * An unfinished first payment (`incomplete`…) changes nothing. Pure: the webhook reads the subscription, this says
 * where the plan goes, and billing.server.ts makes the transition.
 */
export type StripeSubscriptionState = {
  id: string
  customerId: string
  status: string
  cancelAtPeriodEnd: boolean
  canceledAt: Date | null
  /** The price's lookup key: `stampwise_{basic|standard|premium}_{month|year}`. */
  lookupKey: string | null
  periodStartsAt: Date
  periodEndsAt: Date
}

export type StripePlanTarget =
  | {
      status: Exclude<SubscriptionStatus, 'trial'>
      tier: number
      periodMonths: 1 | 12
      periodStartsAt: Date
      periodEndsAt: Date
      /** While waiting for payment: when access stops. */
      accessEndsAt: Date | null
      cancelledAt: Date | null
    }
  | { ignored: string }

const TIERS: Record<string, number> = { basic: 1, standard: 2, premium: 3 }
const DAY_MS = 24 * 60 * 60 * 1000

/** The plan and period of a price by its lookup key, or null for a price that is not one of the plans'. */
export function planOfLookupKey(key: string | null): { tier: number; periodMonths: 1 | 12 } | null {
  const match = /^stampwise_(basic|standard|premium)_(month|year)$/.exec(key ?? '')
  return match ? { tier: TIERS[match[1]!]!, periodMonths: match[2] === 'year' ? 12 : 1 } : null
}

export function stripePlanTarget(
  state: StripeSubscriptionState,
  {
    failedAt,
    accessEndsAt,
    now,
  }: {
    /** When the invoice that failed was made, for the grace days (the event's invoice, when it is one). */
    failedAt?: Date | null
    /** The grace already running (the plan waits for payment since an earlier failure). */
    accessEndsAt?: Date | null
    now: Date
  },
): StripePlanTarget {
  const plan = planOfLookupKey(state.lookupKey)
  if (!plan) return { ignored: `not a price of the plans (${state.lookupKey ?? 'no lookup key'})` }
  const period = { ...plan, periodStartsAt: state.periodStartsAt, periodEndsAt: state.periodEndsAt }
  switch (state.status) {
    case 'active':
    case 'trialing':
      return state.cancelAtPeriodEnd
        ? { ...period, status: 'cancelled', accessEndsAt: null, cancelledAt: state.canceledAt ?? now }
        : { ...period, status: 'active', accessEndsAt: null, cancelledAt: null }
    case 'past_due':
    case 'unpaid': {
      const graceEnds = failedAt ? new Date(failedAt.getTime() + GRACE_DAYS * DAY_MS) : accessEndsAt
      return {
        ...period,
        status: 'waiting_payment',
        accessEndsAt: graceEnds ?? new Date(now.getTime() + GRACE_DAYS * DAY_MS),
        cancelledAt: null,
      }
    }
    case 'canceled':
      return { ...period, status: 'ended', accessEndsAt: null, cancelledAt: state.canceledAt ?? now }
    default:
      return { ignored: `the subscription is ${state.status}` }
  }
}
