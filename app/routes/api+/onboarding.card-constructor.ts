import { apiAction, apiError, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { cardAnswer, saveCardDesign } from '#app/services/cards/card-design.server.ts'
import { CardDesignCallSchema } from '#app/utils/card-design-schema.ts'

/**
 * POST /api/onboarding/card-constructor: the design step as a JSON call. Without `cardId` a new draft card
 * (201, within the plan's card limit, else 403); with it, the owner's card is updated (200; another owner's: 404).
 */
export const action = apiAction(async ({ request }) => {
  const userId = await requireApiUserId(request)
  const { cardId, ...design } = await parseBody(request, CardDesignCallSchema)
  const outcome = await saveCardDesign({ userId, cardId: cardId ?? null, design })
  if (outcome.status === 'not-found') return apiError(404, 'Card not found')
  if (outcome.status === 'limit') return apiError(403, outcome.message, { data: { upgrade_url: '/account/tariffs' } })
  const created = outcome.status === 'created'
  return apiSuccess(
    created ? 'Card created' : 'Card saved',
    { card: cardAnswer(outcome.card) },
    { status: created ? 201 : 200 },
  )
})

export const loader = postOnlyLoader
