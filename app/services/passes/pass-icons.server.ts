import { loadSharp } from '#app/server/sharp.server.ts'
import { stampIconPathMarkup } from '#app/utils/stamp-icon-drawings.ts'

/**
 * The pass's app icons (manifest, home screen): the card's background colour with its stamp icon in the text
 * colour, or its logo on a white disc when it has one. Drawn as SVG, rasterised by sharp; the few sizes a card
 * needs are kept in memory per card version (the address carries the version, so browsers keep them for good).
 */
export const ICON_SIZES = [192, 512] as const
export type IconSize = (typeof ICON_SIZES)[number]

type IconCard = { id: string; backgroundColor: string; textColor: string; stampIcon: string; version: number }

const MAX_CACHED = 500
const cache = new Map<string, Promise<Buffer>>()

function iconSvg(card: IconCard, size: number, withLogo: boolean) {
  // The same stroke path as on the card (stroke="currentColor", which the group's color sets).
  const path = stampIconPathMarkup(card.stampIcon)
  const inner = withLogo
    ? `<circle cx="${size / 2}" cy="${size / 2}" r="${size * 0.36}" fill="#ffffff"/>`
    : `<g transform="translate(${size * 0.2} ${size * 0.2}) scale(${(size * 0.6) / 24})" color="${card.textColor}">${path}</g>`
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><rect width="100%" height="100%" fill="${card.backgroundColor}"/>${inner}</svg>`
}

async function drawIcon(card: IconCard, size: IconSize, logo: Buffer | null): Promise<Buffer> {
  const sharp = await loadSharp()
  const usableLogo = logo
    ? await sharp(logo)
        .resize(Math.round(size * 0.5), Math.round(size * 0.5), { fit: 'contain', background: '#ffffff' })
        .png()
        .toBuffer()
        .catch(() => null)
    : null
  const base = sharp(Buffer.from(iconSvg(card, size, Boolean(usableLogo))))
  return (usableLogo ? base.composite([{ input: usableLogo, gravity: 'centre' }]) : base).png().toBuffer()
}

export function passIcon(card: IconCard, size: IconSize, loadLogo: () => Promise<Buffer | null>): Promise<Buffer> {
  const key = `${card.id}|${card.version}|${size}`
  let icon = cache.get(key)
  if (!icon) {
    icon = loadLogo().then((logo) => drawIcon(card, size, logo))
    icon.catch(() => cache.delete(key))
    cache.set(key, icon)
    if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!)
  }
  return icon
}
