import { type LoaderFunctionArgs } from '@remix-run/node'
import { notFound } from '#app/server/http-errors.server.ts'
import { goalDescription, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { ICON_SIZES } from '#app/services/passes/pass-icons.server.ts'
import { manifestShortName } from '#app/utils/manifest-short-name.ts'
import { getPassView } from '#models/pass.server.ts'

/** The pass as an installable web app: its own name, icons and colours, opening on the pass itself. */
export async function loader({ params }: LoaderFunctionArgs) {
  const pass = await getPassView(params.passId)
  if (!pass) return notFound('Not found', { 'Cache-Control': 'no-store' })
  const { card } = pass
  const passUrl = `/p/${pass.id}`
  const version = Math.round(card.version).toString(36)
  const title = card.title || 'Stamp card'
  const manifest = {
    id: passUrl,
    name: card.businessName ? `${title} — ${card.businessName}` : title,
    short_name: manifestShortName(card.businessName, title),
    description: goalDescription(schemeOf(card)),
    start_url: passUrl,
    scope: passUrl,
    display: 'standalone',
    theme_color: card.backgroundColor,
    background_color: card.backgroundColor,
    icons: ICON_SIZES.map((size) => ({
      src: `${passUrl}/icons/${size}-${version}.png`,
      sizes: `${size}x${size}`,
      type: 'image/png',
      purpose: 'any',
    })),
  }
  return new Response(JSON.stringify(manifest), {
    headers: { 'Content-Type': 'application/manifest+json', 'Cache-Control': 'public, max-age=300' },
  })
}
