import zlib from 'node:zlib'
import sharp from 'sharp'
import { describe, expect, test } from 'vitest'
import { LOGO_MAX_BYTES, LOGO_MESSAGES, prepareLogo, sniffImageFormat } from './logo-image.server.ts'

const image = (format: 'png' | 'jpeg' | 'webp' | 'gif', width = 400, height = 300) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 60, b: 30 } } })
    .toFormat(format)
    .toBuffer()

describe('sniffImageFormat', () => {
  test('names PNG, JPEG and WebP by their first bytes', async () => {
    expect(sniffImageFormat(await image('png'))).toBe('png')
    expect(sniffImageFormat(await image('jpeg'))).toBe('jpeg')
    expect(sniffImageFormat(await image('webp'))).toBe('webp')
  })

  test('names nothing else', async () => {
    expect(sniffImageFormat(await image('gif'))).toBeNull()
    expect(sniffImageFormat(Buffer.from('just some text, renamed logo.png'))).toBeNull()
    expect(sniffImageFormat(new Uint8Array())).toBeNull()
  })
})

describe('prepareLogo', () => {
  test.each(['png', 'jpeg', 'webp'] as const)('turns a %s into a centred 256 × 256 WebP', async (format) => {
    const result = await prepareLogo(await image(format, 800, 500))
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.contentType).toBe('image/webp')
    const metadata = await sharp(result.data).metadata()
    expect(metadata).toMatchObject({ format: 'webp', width: 256, height: 256 })
  })

  test('crops a small image to a square without enlarging it', async () => {
    const result = await prepareLogo(await image('png', 120, 80))
    expect(result.ok && (await sharp(result.data).metadata())).toMatchObject({ width: 80, height: 80 })
  })

  test('refuses a text file renamed to .png, and formats other than the three', async () => {
    expect(await prepareLogo(Buffer.from('hello, I am not an image'))).toEqual({
      ok: false,
      message: LOGO_MESSAGES.type,
    })
    expect(await prepareLogo(await image('gif'))).toEqual({ ok: false, message: LOGO_MESSAGES.type })
  })

  test('refuses a file whose first bytes lie about what follows', async () => {
    const fakePng = Buffer.concat([(await image('png')).subarray(0, 8), Buffer.from('not really a png at all')])
    expect(await prepareLogo(fakePng)).toEqual({ ok: false, message: LOGO_MESSAGES.unreadable })
  })

  test('refuses an empty file and one over 2 MB', async () => {
    expect(await prepareLogo(Buffer.alloc(0))).toEqual({ ok: false, message: LOGO_MESSAGES.missing })
    const big = Buffer.concat([await image('png'), Buffer.alloc(LOGO_MAX_BYTES)])
    expect(await prepareLogo(big)).toEqual({ ok: false, message: LOGO_MESSAGES.tooLarge })
  })

  test.each(['png', 'jpeg', 'webp'] as const)('refuses a truncated %s', async (format) => {
    const noisy = await sharp(Buffer.from(Array.from({ length: 300 * 300 * 3 }, (_, i) => (i * 7919) % 256)), {
      raw: { width: 300, height: 300, channels: 3 },
    })
      .toFormat(format)
      .toBuffer()
    const truncated = noisy.subarray(0, Math.floor(noisy.byteLength / 2))
    expect(await prepareLogo(truncated)).toEqual({ ok: false, message: LOGO_MESSAGES.unreadable })
  })

  test('refuses a decompression bomb: a small file of huge pixel dimensions', async () => {
    // A real, valid 8000 × 8000 PNG of one colour: 64 megapixels in a few kilobytes.
    const bomb = await sharp(Buffer.alloc(8000 * 8000), { raw: { width: 8000, height: 8000, channels: 1 } })
      .png({ compressionLevel: 9 })
      .toBuffer()
    expect(bomb.byteLength).toBeLessThan(LOGO_MAX_BYTES)
    expect(await prepareLogo(bomb)).toEqual({ ok: false, message: LOGO_MESSAGES.tooManyPixels })
  })

  test('refuses a PNG whose header claims 60000 × 60000 pixels', async () => {
    const png = Buffer.from(await image('png', 10, 10))
    // IHDR starts at byte 8: length (4), "IHDR" (4), width (4), height (4), … then a CRC over type and data.
    png.writeUInt32BE(60_000, 16)
    png.writeUInt32BE(60_000, 20)
    png.writeUInt32BE(zlib.crc32(png.subarray(12, 29)), 29)
    expect(await prepareLogo(png)).toEqual({ ok: false, message: LOGO_MESSAGES.tooManyPixels })
  })
})
