import { notFound } from '#app/server/http-errors.server.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { findOwnerCard, type OnboardingCard } from '#models/card-onboarding.server.ts'
import { getOwnedCard, type OwnedCard } from '#models/card.server.ts'

export const CARD_NOT_FOUND = 'Card not found'

/** What a route needs of the card: the card pages' fields, or the design and onboarding fields (designer, steps). */
type CardViews = { page: OwnedCard; design: OnboardingCard }

/**
 * The one way a page, download or call reaches an owner's card. An id that is not a uuid, another owner's card and
 * a missing one are all the same 404 'Card not found' (nobody learns which cards exist); a JSON call passes its own
 * answer as `refuse` (apiError). `userId` is checked too, since an admin page takes it from the address.
 */
export async function requireOwnedCard<View extends keyof CardViews = 'page'>(
  userId: string | undefined,
  cardId: string | null | undefined,
  { view, refuse = () => notFound(CARD_NOT_FOUND) }: { view?: View; refuse?: () => Response } = {},
): Promise<CardViews[View]> {
  if (!isUuid(userId) || !isUuid(cardId)) throw refuse()
  const card = view === 'design' ? await findOwnerCard(userId, cardId) : await getOwnedCard({ cardId, userId })
  if (!card) throw refuse()
  return card as CardViews[View]
}
