import { findNewestOwnerCard, findOwnerCard } from '#models/card-onboarding.server.ts'
import { apiError } from '#app/server/api.server.ts'

/** The card a GET onboarding call names by `?cardId=`, by default the owner's newest card; a 404 answer is thrown. */
export async function requireCallCard(request: Request, userId: string) {
  const cardId = new URL(request.url).searchParams.get('cardId')
  const card = cardId ? await findOwnerCard(userId, cardId) : await findNewestOwnerCard(userId)
  if (!card) throw apiError(404, 'Card not found')
  return card
}
