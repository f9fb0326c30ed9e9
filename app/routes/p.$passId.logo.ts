import { type LoaderFunctionArgs } from '@remix-run/node'
import { notFound } from '#app/server/http-errors.server.ts'
import { getPassCardLogo, getPassView } from '#models/pass.server.ts'

/** The card's logo as the pass page shows it; ?v= is the card's version, so a current address is kept for good. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const pass = await getPassView(params.passId)
  const logo = pass?.card.hasLogo ? await getPassCardLogo(pass.id) : null
  if (!pass || !logo) return notFound('Not found', { 'Cache-Control': 'no-store' })
  const current = new URL(request.url).searchParams.get('v') === Math.round(pass.card.version).toString(36)
  return new Response(new Uint8Array(logo.data), {
    headers: {
      'Content-Type': logo.contentType,
      'Content-Length': String(logo.data.byteLength),
      'Cache-Control': current ? 'public, max-age=31536000, immutable' : 'no-cache',
    },
  })
}
