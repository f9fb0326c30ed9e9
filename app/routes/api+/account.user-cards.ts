import { apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { joinUrl } from '#app/services/cards/card-qr.server.ts'
import { monthStart } from '#app/utils/plan-status.ts'
import { listOwnerCardsWithStats } from '#models/card.server.ts'

/** GET /api/account/user-cards: the owner's cards with holders and this month's stamps. */
export const loader = apiLoader(async ({ request }) => {
  const userId = await requireApiUserId(request)
  const cards = await listOwnerCardsWithStats(userId, monthStart(new Date()))
  return apiSuccess('Cards', {
    cards: cards.map(({ stampsSince, ...card }) => ({
      ...card,
      stampsThisMonth: stampsSince,
      joinUrl: joinUrl(card.slug),
    })),
  })
})

export const action = getOnlyAction
