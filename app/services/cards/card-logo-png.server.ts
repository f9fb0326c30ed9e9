import { loadSharp } from '#app/server/sharp.server.ts'
import { stampIconSvg } from './stamp-icon-svg.server.ts'

/**
 * A card's logo as PNG (stored as WebP; Google Wallet and older mail or print tools want PNG). Converted once per
 * card version and kept in memory: logos are at most 256 × 256, so a few hundred fit in a few megabytes.
 */
const MAX_CACHED = 200
const cache = new Map<string, Promise<Buffer>>()

export function cardLogoPng(key: string, logo: Buffer): Promise<Buffer> {
  return remembered(key, async () => (await loadSharp())(logo).png().toBuffer())
}

/** Google Wallet's program logo size (it asks for 660 × 660). */
const DRAWN_SIZE = 660

/**
 * A card without an uploaded logo still needs one where a logo is required (Google Wallet's class): its stamp icon
 * in the text colour on its background colour, square, as the Apple pass draws it.
 */
export function drawnCardLogoPng(
  key: string,
  card: { stampIcon: string; backgroundColor: string; textColor: string },
): Promise<Buffer> {
  const margin = DRAWN_SIZE * 0.2
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${DRAWN_SIZE}" height="${DRAWN_SIZE}"><rect width="100%" height="100%" fill="${card.backgroundColor}"/>${stampIconSvg(card.stampIcon, card.textColor, margin, margin, DRAWN_SIZE - 2 * margin)}</svg>`
  return remembered(`drawn|${key}`, async () => (await loadSharp())(Buffer.from(svg)).png().toBuffer())
}

function remembered(key: string, make: () => Promise<Buffer>) {
  let png = cache.get(key)
  if (!png) {
    png = make()
    png.catch(() => cache.delete(key))
    cache.set(key, png)
    if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!)
  }
  return png
}
