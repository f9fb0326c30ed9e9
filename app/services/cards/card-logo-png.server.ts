import sharp from 'sharp'

/**
 * A card's logo as PNG (stored as WebP; Google Wallet and older mail or print tools want PNG). Converted once per
 * card version and kept in memory: logos are at most 256 × 256, so a few hundred fit in a few megabytes.
 */
const MAX_CACHED = 200
const cache = new Map<string, Promise<Buffer>>()

export function cardLogoPng(key: string, logo: Buffer): Promise<Buffer> {
  let png = cache.get(key)
  if (!png) {
    png = sharp(logo).png().toBuffer()
    png.catch(() => cache.delete(key))
    cache.set(key, png)
    if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!)
  }
  return png
}
