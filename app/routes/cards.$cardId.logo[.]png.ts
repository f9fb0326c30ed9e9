import { type LoaderFunctionArgs } from '@remix-run/node'
import { notFound } from '#app/server/http-errors.server.ts'
import { cardLogoPng } from '#app/services/cards/card-logo-png.server.ts'
import { getPublicCardLogo } from '#models/card.server.ts'

/**
 * A card's logo, public like the card itself (join page, poster, Google Wallet's class): only someone who has the
 * card's id or its pages sees it. ?v= is the card's version: a current address is cached for good.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const logo = await getPublicCardLogo(params.cardId)
  if (!logo) return notFound('Not found', { 'Cache-Control': 'no-store' })
  const version = Math.round(logo.version).toString(36)
  // A stored logo sharp cannot read (older rows were not all checked) is served as stored rather than failing.
  const png = await cardLogoPng(`${params.cardId}|${version}`, logo.data).catch(() => null)
  const current = new URL(request.url).searchParams.get('v') === version
  return new Response(new Uint8Array(png ?? logo.data), {
    headers: {
      'Content-Type': png ? 'image/png' : logo.contentType,
      'Content-Length': String((png ?? logo.data).byteLength),
      'Cache-Control': current ? 'public, max-age=31536000, immutable' : 'no-cache',
    },
  })
}
