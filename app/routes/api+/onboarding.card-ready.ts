import { apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { requireCallCard } from '#app/services/cards/card-design-call.server.ts'
import { cardAnswer } from '#app/services/cards/card-design.server.ts'

/** GET /api/onboarding/card-ready?cardId= (default: the owner's newest card). */
export const loader = apiLoader(async ({ request }) => {
  const userId = await requireApiUserId(request)
  const card = await requireCallCard(request, userId)
  return apiSuccess('Card', { card: cardAnswer(card) })
})

export const action = getOnlyAction
