import { apiAction, apiError, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { cardAnswer, saveReward } from '#app/services/cards/card-design.server.ts'
import { CardRewardCallSchema } from '#app/utils/card-design-schema.ts'
import { findOwnerCard } from '#models/card-onboarding.server.ts'

/** POST /api/onboarding/card-reward: the reward and terms; the card becomes active (another owner's card: 404). */
export const action = apiAction(async ({ request }) => {
  const userId = await requireApiUserId(request)
  const { cardId, ...reward } = await parseBody(request, CardRewardCallSchema)
  const card = await findOwnerCard(userId, cardId)
  if (!card) return apiError(404, 'Card not found')
  return apiSuccess('Card is ready', { card: cardAnswer(await saveReward({ userId, card, reward })) })
})

export const loader = postOnlyLoader
