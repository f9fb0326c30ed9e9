import { apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { getPlanOverview } from '#app/services/billing/plan.server.ts'

/** The owner's plan: status, period, limits, this month's push quota and the invoice waiting for payment. */
export const loader = apiLoader(async ({ request }) => {
  const userId = await requireApiUserId(request)
  const { state, box, quota, cards, invoice } = await getPlanOverview(userId)
  return apiSuccess('Plan', {
    plan: {
      status: state.status,
      sub_active_flag: state.subActiveFlag,
      trial_days: state.trialDays,
      title: box.title,
      subtitle: box.subtitle,
      tariff: state.tariff && !state.inTrial ? { tier: state.tariff.tier, tariff_name: state.tariff.name } : null,
      duration_in_months: state.periodMonths,
      period_ends_at: state.periodEndsAt?.toISOString() ?? null,
      access_ends_at: state.accessEndsAt?.toISOString() ?? null,
      limits: { cards: state.cardLimit, push_per_month: state.monthlyPushLimit },
      usage: { active_cards: cards.active, push_this_month: quota.usedThisMonth },
      quota_left: { monthly: quota.monthlyLeft, additional: quota.additionalLeft, total: quota.totalLeft },
      additional_quota: state.additionalQuota,
      invoice: invoice && {
        number: invoice.number,
        status: invoice.status,
        amount_cents: invoice.amountCents,
        duration_in_months: invoice.periodMonths,
        tariff_name: invoice.tariffName,
        payment_instructions: invoice.paymentInstructions,
      },
    },
  })
})

export const action = getOnlyAction
