import { type LoaderFunctionArgs } from '@remix-run/node'
import { joinUrl, qrSvg } from '#app/services/cards/card-qr.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { getOwnedCard } from '#models/card.server.ts'

/** The QR code page's data (both addresses share it). */
export async function qrCodeLoader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await getOwnedCard({ cardId: params.cardId, userId })
  if (!card) throw new Response('Card not found', { status: 404 })
  const url = joinUrl(card.slug)
  return { card, joinUrl: url, svg: await qrSvg(url) }
}

