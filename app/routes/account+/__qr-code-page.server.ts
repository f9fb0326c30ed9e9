import { type LoaderFunctionArgs } from '@remix-run/node'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { joinUrl, qrSvg } from '#app/services/cards/card-qr.server.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'

/** The QR code page's data (both addresses share it). */
export async function qrCodeLoader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const url = joinUrl(card.slug)
  return { card, joinUrl: url, svg: await qrSvg(url) }
}
