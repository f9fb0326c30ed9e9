import { apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { countOwnerCards } from '#models/card.server.ts'

/** GET /api/onboarding/total-cards: how many cards the owner has ({"total_cards": n}). */
export const loader = apiLoader(async ({ request }) => {
  const userId = await requireApiUserId(request)
  return apiSuccess('Total cards', { total_cards: await countOwnerCards(userId) })
})

export const action = getOnlyAction
