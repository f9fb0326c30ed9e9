import { apiLoader, apiSuccess, getOnlyAction } from '#app/utils/api.server.ts'
import { requireCallCard } from '#app/utils/card-design-call.server.ts'
import { cardAnswer } from '#app/utils/card-design.server.ts'
import { requireApiUserId } from '#app/utils/session.server.ts'

/** GET /api/onboarding/card-ready?cardId= (default: the owner's newest card). */
export const loader = apiLoader(async ({ request }) => {
  const userId = await requireApiUserId(request)
  const card = await requireCallCard(request, userId)
  return apiSuccess('Card', { card: cardAnswer(card) })
})

export const action = getOnlyAction
