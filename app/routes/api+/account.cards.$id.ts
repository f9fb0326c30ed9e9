import { apiError, apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { cardJson } from '#app/services/cards/card-json.server.ts'
import { getOwnedCard } from '#models/card.server.ts'

/** GET /api/account/cards/{id}: one of the owner's cards; another owner's (or no such card) is 404. */
export const loader = apiLoader(async ({ request, params }) => {
  const userId = await requireApiUserId(request)
  const card = await getOwnedCard({ cardId: params.id, userId })
  if (!card) return apiError(404, 'Card not found')
  return apiSuccess('Card', { card: cardJson(card) })
})

export const action = getOnlyAction
