import sharp from 'sharp'
import { stampIconSvg as stampIcon } from '#app/services/cards/stamp-icon-svg.server.ts'

/**
 * The images of an Apple pass, PNG at Apple's pixel sizes (@1x, @2x, @3x): the icon (notifications, lock screen), the
 * logo (the card's own, whatever format the owner uploaded, or one drawn from its stamp icon) and the storeCard strip
 * that draws the stamps as on the web pass (a solid ring with the icon for each collected stamp, a faint dashed ring
 * for each one to go). They depend only on the design (and the stamps, for the strip), so they are kept in memory
 * by card id and version.
 */

export type PassImageCard = {
  id: string
  version: number
  backgroundColor: string
  textColor: string
  stampIcon: string
  logo: { data: Buffer; contentType: string } | null
}

/** Apple's sizes at @1x, in points (Wallet: "Pass design and creation"). */
export const PASS_IMAGE_SIZES = {
  icon: { width: 29, height: 29 },
  logo: { width: 160, height: 50 },
  strip: { width: 375, height: 123 },
} as const
const SCALES = [1, 2, 3] as const

const fileName = (name: string, scale: number) => (scale === 1 ? `${name}.png` : `${name}@${scale}x.png`)

function svg(width: number, height: number, scale: number, body: string) {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width * scale}" height="${height * scale}" viewBox="0 0 ${width} ${height}">${body}</svg>`,
  )
}

function iconSvg(card: PassImageCard, scale: number) {
  const { width, height } = PASS_IMAGE_SIZES.icon
  const body = `<rect width="${width}" height="${height}" fill="${card.backgroundColor}"/>${stampIcon(card.stampIcon, card.textColor, 4.5, 4.5, 20)}`
  return svg(width, height, scale, body)
}

/** No logo uploaded: the stamp icon in the text colour, on the pass's own background (so it reads as a mark). */
function drawnLogoSvg(card: PassImageCard, scale: number) {
  const side = PASS_IMAGE_SIZES.logo.height
  return svg(side, side, scale, stampIcon(card.stampIcon, card.textColor, 5, 5, side - 10))
}

/** Where each stamp goes: one row up to 7, two rows beyond (up to 10 a row at 20 stamps). */
export function stampLayout(required: number) {
  const { width, height } = PASS_IMAGE_SIZES.strip
  const rows = required > 7 ? 2 : 1
  const columns = Math.ceil(required / rows)
  const cellWidth = (width - 16) / columns
  const cellHeight = (height - 12) / rows
  const diameter = Math.min(cellWidth, cellHeight, 80) * 0.82
  return Array.from({ length: required }, (_, index) => {
    const row = Math.floor(index / columns)
    const inRow = row === rows - 1 ? required - columns * (rows - 1) : columns
    const column = index % columns
    // A shorter last row is centred under the full one.
    const rowStart = (width - inRow * cellWidth) / 2
    return {
      cx: rowStart + (column + 0.5) * cellWidth,
      cy: 6 + (row + 0.5) * cellHeight,
      r: diameter / 2,
    }
  })
}

function stripSvg(card: PassImageCard, stamps: number, required: number, scale: number) {
  const { width, height } = PASS_IMAGE_SIZES.strip
  const collected = Math.min(Math.max(stamps, 0), required)
  const rings = stampLayout(required).map(({ cx, cy, r }, index) => {
    const ring = `<circle cx="${cx}" cy="${cy}" r="${r - 1.25}" fill="none" stroke="${card.textColor}" stroke-width="2.5"`
    if (index >= collected) return `${ring} stroke-dasharray="4 3" opacity="0.55"/>`
    const iconSize = r * 1.15
    return `${ring}/>${stampIcon(card.stampIcon, card.textColor, cx - iconSize / 2, cy - iconSize / 2, iconSize)}`
  })
  return svg(
    width,
    height,
    scale,
    `<rect width="${width}" height="${height}" fill="${card.backgroundColor}"/>${rings.join('')}`,
  )
}

const toPng = (image: Buffer) => sharp(image).png().toBuffer()

async function logoImages(card: PassImageCard): Promise<Record<string, Buffer>> {
  const { width, height } = PASS_IMAGE_SIZES.logo
  const uploaded = card.logo?.data
  const images = await Promise.all(
    SCALES.map(async (scale) => {
      if (uploaded) {
        const resized = await sharp(uploaded)
          .resize(width * scale, height * scale, { fit: 'inside' })
          .png()
          .toBuffer()
          // An upload sharp cannot read (it was checked when uploaded) falls back to the drawn logo.
          .catch(() => null)
        if (resized) return [fileName('logo', scale), resized] as const
      }
      return [fileName('logo', scale), await toPng(drawnLogoSvg(card, scale))] as const
    }),
  )
  return Object.fromEntries(images)
}

async function designImages(card: PassImageCard) {
  const icons = await Promise.all(
    SCALES.map(async (scale) => [fileName('icon', scale), await toPng(iconSvg(card, scale))]),
  )
  return { ...Object.fromEntries(icons), ...(await logoImages(card)) } as Record<string, Buffer>
}

async function stripImages(card: PassImageCard, stamps: number, required: number) {
  const strips = await Promise.all(
    SCALES.map(async (scale) => [fileName('strip', scale), await toPng(stripSvg(card, stamps, required, scale))]),
  )
  return Object.fromEntries(strips) as Record<string, Buffer>
}

// A few hundred sets of small PNGs (a few kB each); the oldest goes first.
const MAX_CACHED = 300
const cache = new Map<string, Promise<Record<string, Buffer>>>()

function remembered(key: string, draw: () => Promise<Record<string, Buffer>>) {
  let images = cache.get(key)
  if (!images) {
    images = draw()
    images.catch(() => cache.delete(key))
    cache.set(key, images)
    if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!)
  }
  return images
}

/** Every image file of the pass (icon, logo, strip at @1x/@2x/@3x) by file name. */
export async function applePassImages(card: PassImageCard, stamps: number, stampsRequired: number) {
  const required = Math.min(Math.max(Math.round(stampsRequired), 1), 20)
  const collected = Math.min(Math.max(stamps, 0), required)
  const design = `${card.id}:${card.version}`
  const [designed, strip] = await Promise.all([
    remembered(`${design}:design`, () => designImages(card)),
    remembered(`${design}:strip:${collected}/${required}`, () => stripImages(card, collected, required)),
  ])
  return { ...designed, ...strip }
}

export function resetApplePassImagesForTests() {
  cache.clear()
}
