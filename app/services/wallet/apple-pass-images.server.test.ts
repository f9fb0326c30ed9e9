import sharp from 'sharp'
import { describe, expect, test } from 'vitest'
import { PASS_IMAGE_SIZES, applePassImages, stampLayout, type PassImageCard } from './apple-pass-images.server.ts'

const card: PassImageCard = {
  id: 'card-images',
  version: 1,
  backgroundColor: '#102030',
  textColor: '#f0e0d0',
  stampIcon: 'star',
  logo: null,
}

describe('stampLayout', () => {
  test('every stamp from 1 to 20 fits the strip, and no two overlap', () => {
    const { width, height } = PASS_IMAGE_SIZES.strip
    for (let required = 1; required <= 20; required++) {
      const stamps = stampLayout(required)
      expect(stamps).toHaveLength(required)
      for (const [index, { cx, cy, r }] of stamps.entries()) {
        expect(cx - r).toBeGreaterThanOrEqual(0)
        expect(cy - r).toBeGreaterThanOrEqual(0)
        expect(cx + r).toBeLessThanOrEqual(width)
        expect(cy + r).toBeLessThanOrEqual(height)
        expect(r).toBeGreaterThan(10)
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
