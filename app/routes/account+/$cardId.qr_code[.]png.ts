import { type LoaderFunctionArgs } from '@remix-run/node'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { joinUrl, qrPng } from '#app/services/cards/card-qr.server.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'

/** The card's QR code as a 1024-pixel PNG download. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  return new Response(new Uint8Array(await qrPng(joinUrl(card.slug))), {
    headers: {
      'Content-Type': 'image/png',
      'Content-Disposition': `attachment; filename="${card.slug}-qr.png"`,
      'Cache-Control': 'private, max-age=300',
    },
  })
}
