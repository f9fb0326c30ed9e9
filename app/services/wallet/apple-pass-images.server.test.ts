import sharp from 'sharp'
import { describe, expect, test } from 'vitest'
import {
  PASS_IMAGE_SIZES,
  STAMP_AREA,
  applePassImages,
  stampLayout,
  type PassImageCard,
} from './apple-pass-images.server.ts'

const card: PassImageCard = {
  id: 'card-images',
  version: 1,
  backgroundColor: '#102030',
  textColor: '#f0e0d0',
  stampIcon: 'star',
  logo: null,
}

describe('stampLayout', () => {
  test('every stamp from 1 to 20 fits the strip right of where Wallet writes the count, and no two overlap', () => {
    const { width, height } = PASS_IMAGE_SIZES.strip
    expect([width, height]).toEqual([375, 144])
    for (let required = 1; required <= 20; required++) {
      const stamps = stampLayout(required)
      expect(stamps).toHaveLength(required)
      for (const [index, { cx, cy, r }] of stamps.entries()) {
        expect(cx - r).toBeGreaterThanOrEqual(STAMP_AREA.left)
        expect(cy - r).toBeGreaterThanOrEqual(STAMP_AREA.top)
        expect(cx + r).toBeLessThanOrEqual(Math.min(STAMP_AREA.right, width))
        expect(cy + r).toBeLessThanOrEqual(Math.min(STAMP_AREA.bottom, height))
        expect(r).toBeGreaterThan(12)
        for (const other of stamps.slice(index + 1)) {
          expect(Math.hypot(other.cx - cx, other.cy - cy)).toBeGreaterThanOrEqual(2 * r)
        }
      }
    }
  })
})

describe('applePassImages', () => {
  test('kept per card version: the same design draws once, a new version draws again', async () => {
    const first = await applePassImages(card, 2, 5)
    const again = await applePassImages(card, 2, 5)
    expect(again['strip@3x.png']).toBe(first['strip@3x.png'])
    expect(again['icon.png']).toBe(first['icon.png'])
    const recoloured = await applePassImages({ ...card, version: 2, backgroundColor: '#ff0000' }, 2, 5)
    expect(recoloured['icon.png']!.equals(first['icon.png']!)).toBe(false)
  })

  test('the strip is 375×144 points at each scale, and its left part (the count is written there) is bare', async () => {
    const images = await applePassImages({ ...card, version: 5 }, 7, 8)
    for (const [name, scale] of [
      ['strip.png', 1],
      ['strip@2x.png', 2],
      ['strip@3x.png', 3],
    ] as const) {
      const { data, info } = await sharp(images[name]!).raw().toBuffer({ resolveWithObject: true })
      expect([info.width, info.height], name).toEqual([375 * scale, 144 * scale])
      const colours = new Set<string>()
      for (let y = 0; y < info.height; y++) {
        for (let x = 0; x < STAMP_AREA.left * scale; x++) {
          const at = (y * info.width + x) * info.channels
          colours.add(data.subarray(at, at + 3).join(','))
        }
      }
      expect([...colours], name).toEqual(['16,32,48'])
    }
  })

  test('the icon and strip are painted in the card background colour', async () => {
    const images = await applePassImages(card, 0, 5)
    for (const name of ['icon.png', 'strip.png']) {
      const { data } = await sharp(images[name]!).raw().toBuffer({ resolveWithObject: true })
      expect([...data.subarray(0, 3)], name).toEqual([0x10, 0x20, 0x30])
    }
  })

  test('an upload sharp cannot read falls back to the logo drawn from the stamp icon', async () => {
    const broken = { ...card, version: 3, logo: { data: Buffer.from('not an image'), contentType: 'image/png' } }
    const drawn = await applePassImages({ ...card, version: 4 }, 0, 5)
    const fallback = await applePassImages(broken, 0, 5)
    expect(fallback['logo@2x.png']!.equals(drawn['logo@2x.png']!)).toBe(true)
  })
})
