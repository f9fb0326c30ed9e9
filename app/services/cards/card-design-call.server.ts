import { apiError } from '#app/server/api.server.ts'
import { findNewestOwnerCard } from '#models/card-onboarding.server.ts'
import { CARD_NOT_FOUND, requireOwnedCard } from './owned-card.server.ts'

const cardNotFound = () => apiError(404, CARD_NOT_FOUND)

/** The card a GET onboarding call names by `?cardId=`, by default the owner's newest card; a 404 answer is thrown. */
export async function requireCallCard(request: Request, userId: string) {
  const cardId = new URL(request.url).searchParams.get('cardId')
  if (cardId) return requireOwnedCard(userId, cardId, { view: 'design', refuse: cardNotFound })
  const card = await findNewestOwnerCard(userId)
  if (!card) throw cardNotFound()
  return card
}
