import { apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { requireOwnerPlanState } from '#app/services/billing/plan.server.ts'
import { countOwnerCards } from '#models/card.server.ts'
import { getPublicUser } from '#models/user.server.ts'

/**
 * The specification's user data call: user_info and user_tariff_info (section 3; docs/product/plans-and-limits.md,
 * "Plan box").
 */
export const loader = apiLoader(async ({ request }) => {
  const userId = await requireApiUserId(request)
  const [user, state, totalCards] = await Promise.all([
    getPublicUser(userId),
    requireOwnerPlanState(userId),
    countOwnerCards(userId),
  ])
  if (!user)
    throw Response.json(
      { status: 'error', message: 'Please sign in', msg: 'Please sign in', errors: {} },
      { status: 401 },
    )
  return apiSuccess('User data', {
    user_info: {
      id: user.id,
      email: user.email,
      role: user.role,
      user_logo: user.logoUrl,
      trial_days: state.trialDays,
      total_cards: totalCards,
      // Beside the specification's fields ("other fields not shown"): the profile's time zone, an IANA name.
      time_zone: user.timeZone,
    },
    user_tariff_info: {
      trial_days: state.trialDays,
      sub_active_flag: state.subActiveFlag,
      tariff:
        state.tariff && !state.inTrial
          ? { tariff_id: state.tariff.tier, duration_in_months: state.periodMonths, tariff_name: state.tariff.name }
          : null,
      user_tariff: { status: state.status },
      additional_quota: state.additionalQuota,
    },
  })
})

export const action = getOnlyAction
