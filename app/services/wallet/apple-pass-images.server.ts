import { loadSharp } from '#app/server/sharp.server.ts'
import { progressOf, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
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

/** Apple's sizes at @1x, in points (Wallet: "Pass design and creation"; a store card's strip is 375×144). */
export const PASS_IMAGE_SIZES = {
  icon: { width: 29, height: 29 },
  logo: { width: 160, height: 50 },
  strip: { width: 375, height: 144 },
} as const
const SCALES = [1, 2, 3] as const

/**
 * Where the stamps go on the strip. Wallet writes the store card's primary field ('3 of 8') over the strip's left
 * part, so the stamps keep to the right of it: the count is never drawn over a stamp.
 */
export const STAMP_AREA = { left: 150, top: 6, right: 369, bottom: 138 } as const

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

/** The rows (1 to 4) that give the largest stamps in the stamp area. */
function bestGrid(required: number) {
  const width = STAMP_AREA.right - STAMP_AREA.left
  const height = STAMP_AREA.bottom - STAMP_AREA.top
  let best = { rows: 1, columns: required, cell: 0 }
  for (let rows = 1; rows <= Math.min(4, required); rows++) {
    const columns = Math.ceil(required / rows)
    const cell = Math.min(width / columns, height / rows)
    if (cell > best.cell) best = { rows, columns, cell }
  }
  return best
}

/** Where each stamp goes: a grid in the stamp area, its rows as full as can be, a shorter last row centred. */
export function stampLayout(required: number) {
  const { rows, columns, cell } = bestGrid(required)
  const diameter = Math.min(cell, 80) * 0.82
  const centreX = (STAMP_AREA.left + STAMP_AREA.right) / 2
  const top = (STAMP_AREA.top + STAMP_AREA.bottom) / 2 - (rows * cell) / 2
  return Array.from({ length: required }, (_, index) => {
    const row = Math.floor(index / columns)
    const inRow = row === rows - 1 ? required - columns * (rows - 1) : columns
    const column = index % columns
    return {
      cx: centreX - (inRow * cell) / 2 + (column + 0.5) * cell,
      cy: top + (row + 0.5) * cell,
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

const toPng = async (image: Buffer) => (await loadSharp())(image).png().toBuffer()

async function logoImages(card: PassImageCard): Promise<Record<string, Buffer>> {
  const { width, height } = PASS_IMAGE_SIZES.logo
  const uploaded = card.logo?.data
  const sharp = await loadSharp()
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
  // The strip has room for 1 to 20 stamps, what a card may ask.
  const drawable = schemeOf({ stampsRequired: Math.min(Math.max(Math.round(stampsRequired), 1), 20) })
  const { collected, goal: required } = progressOf(drawable, stamps)
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
