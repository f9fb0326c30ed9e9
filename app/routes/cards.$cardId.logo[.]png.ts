import { type LoaderFunctionArgs } from '@remix-run/node'
import { notFound } from '#app/server/http-errors.server.ts'
import { cardLogoPng, drawnCardLogoPng } from '#app/services/cards/card-logo-png.server.ts'
import { getPublicCardLogo } from '#models/card.server.ts'

/**
 * A card's logo, public like the card itself (join page, poster, Google Wallet's class): only someone who has the
 * card's id or its pages sees it. A card without an uploaded logo answers one drawn from its stamp icon (Google Wallet
 * requires a logo; the pages show none). ?v= is the card's version: a current address is cached for good.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const logo = await getPublicCardLogo(params.cardId)
  if (!logo) return notFound('Not found', { 'Cache-Control': 'no-store' })
  const version = Math.round(logo.version).toString(36)
  const key = `${params.cardId}|${version}`
  // A stored logo sharp cannot read (older rows were not all checked) is served as stored rather than failing.
  const png = logo.data ? await cardLogoPng(key, logo.data).catch(() => null) : await drawnCardLogoPng(key, logo)
  const body = png ?? logo.data!
  const current = new URL(request.url).searchParams.get('v') === version
  return new Response(new Uint8Array(body), {
    headers: {
      'Content-Type': png ? 'image/png' : logo.contentType,
      'Content-Length': String(body.byteLength),
      'Cache-Control': current ? 'public, max-age=31536000, immutable' : 'no-cache',
    },
  })
}
