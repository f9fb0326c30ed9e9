import { apiError, apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { cardJson } from '#app/services/cards/card-json.server.ts'
import { joinUrl, qrSvg } from '#app/services/cards/card-qr.server.ts'
import { getOwnedCard } from '#models/card.server.ts'

/** GET /api/account/qr_code/{cardId}: the card's join address and its QR code as SVG. */
export const loader = apiLoader(async ({ request, params }) => {
  const userId = await requireApiUserId(request)
  const card = await getOwnedCard({ cardId: params.cardId, userId })
  if (!card) return apiError(404, 'Card not found')
  const url = joinUrl(card.slug)
  return apiSuccess('QR code', { card: cardJson(card), join_url: url, qr_svg: await qrSvg(url) })
})

export const action = getOnlyAction
