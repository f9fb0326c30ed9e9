import { type LoaderFunctionArgs } from '@remix-run/node'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { joinUrl, qrSvg } from '#app/services/cards/card-qr.server.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'

/** The card's QR code as an SVG download. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  return new Response(await qrSvg(joinUrl(card.slug)), {
    headers: {
      'Content-Type': 'image/svg+xml; charset=utf-8',
      'Content-Disposition': `attachment; filename="${card.slug}-qr.svg"`,
      'Cache-Control': 'private, max-age=300',
    },
  })
}
