import { apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { requireCallCard } from '#app/services/cards/card-design-call.server.ts'
import { cardAnswer, cardJoinUrl, cardQrSvg } from '#app/services/cards/card-design.server.ts'

/** GET /api/onboarding/qr-code?cardId= (default: the owner's newest card): the join address and its QR code as SVG. */
export const loader = apiLoader(async ({ request }) => {
  const userId = await requireApiUserId(request)
  const card = await requireCallCard(request, userId)
  return apiSuccess('QR code', {
    card: cardAnswer(card),
    join_url: cardJoinUrl(card.slug),
    qr_svg: await cardQrSvg(card.slug),
  })
})

export const action = getOnlyAction
