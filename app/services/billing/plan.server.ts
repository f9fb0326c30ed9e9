import { notFound } from '#app/server/http-errors.server.ts'
import { monthStart, planBox, planState, type PlanState } from '#app/utils/plan-status.ts'
import { countOwnerCardPlaces } from '#models/card.server.ts'
import { getOpenInvoiceForUser } from '#models/invoice.server.ts'
import { countQuotaPushesSince } from '#models/notification.server.ts'
import { ensureOwnerSubscription } from '#models/subscription.server.ts'
import { getPaymentProvider } from './payment-provider.server.ts'

export async function requireOwnerPlanState(userId: string, now = new Date()): Promise<PlanState> {
  const subscription = await ensureOwnerSubscription(userId)
  if (!subscription) throw notFound('Account not found')
  return planState(subscription, now)
}

export type PushQuota = {
  monthlyLimit: number
  usedThisMonth: number
  monthlyLeft: number
  additionalLeft: number
  /** Messages the owner can still send now: this month's rest, then the additional quota. */
  totalLeft: number
}

export function pushQuota(state: PlanState, usedThisMonth: number): PushQuota {
  const monthlyLeft = Math.max(0, state.monthlyPushLimit - usedThisMonth)
  return {
    monthlyLimit: state.monthlyPushLimit,
    usedThisMonth,
    monthlyLeft,
    additionalLeft: state.additionalQuota,
    totalLeft: monthlyLeft + state.additionalQuota,
  }
}

export async function getPushQuota(userId: string, state: PlanState, now = new Date()): Promise<PushQuota> {
  return pushQuota(state, await countQuotaPushesSince(userId, monthStart(now)))
}

/** Everything /account/plan and /api/account/plan show. */
export async function getPlanOverview(userId: string, now = new Date()) {
  const state = await requireOwnerPlanState(userId, now)
  const [quota, cardPlaces, invoice] = await Promise.all([
    getPushQuota(userId, state, now),
    countOwnerCardPlaces(userId),
    getOpenInvoiceForUser(userId),
  ])
  const provider = getPaymentProvider()
  return {
    state,
    box: planBox(state),
    quota,
    cards: { active: cardPlaces.used, drafts: cardPlaces.drafts, limit: state.cardLimit },
    invoice: invoice && { ...invoice, paymentInstructions: provider.paymentInstructions(invoice) },
  }
}

export type PlanOverview = Awaited<ReturnType<typeof getPlanOverview>>
