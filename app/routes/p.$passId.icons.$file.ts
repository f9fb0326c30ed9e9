import { type LoaderFunctionArgs } from '@remix-run/node'
import { notFound } from '#app/server/http-errors.server.ts'
import { ICON_SIZES, passIcon, type IconSize } from '#app/services/passes/pass-icons.server.ts'
import { getPassCardLogo, getPassView } from '#models/pass.server.ts'

/**
 * The pass's app icons, /p/{passId}/icons/{size}-{version}.png: the version is the card's, so an address always
 * shows one design and is cached for a year; an outdated version answers the current icon, revalidated each time.
 */
const missing = () => notFound('Not found', { 'Cache-Control': 'no-store' })

export async function loader({ params }: LoaderFunctionArgs) {
  const match = /^(\d+)-([0-9a-z]{1,16})\.png$/.exec(params.file ?? '')
  const size = Number(match?.[1]) as IconSize
  if (!match || !ICON_SIZES.includes(size)) return missing()
  const pass = await getPassView(params.passId)
  if (!pass) return missing()
  const { card } = pass
  const current = match[2] === Math.round(card.version).toString(36)
  const png = await passIcon(card, size, async () =>
    card.hasLogo ? ((await getPassCardLogo(pass.id))?.data ?? null) : null,
  )
  return new Response(new Uint8Array(png), {
    headers: {
      'Content-Type': 'image/png',
      'Content-Length': String(png.byteLength),
      'Cache-Control': current ? 'public, max-age=31536000, immutable' : 'no-cache',
    },
  })
}
