import { loadSharp } from '#app/server/sharp.server.ts'
import { LOGO_MAX_BYTES, LOGO_MESSAGES } from '#app/utils/logo-image.ts'

/**
 * The owner's profile logo: what an upload must be, checked by its content (never by the file's name or the type
 * the browser declared), and how it is stored (at most 256 × 256, WebP).
 */
export { LOGO_MAX_BYTES, LOGO_MESSAGES }
export const LOGO_SIZE = 256
/** Decompression bombs (a small file that decodes to billions of pixels) are refused before they are decoded. */
export const LOGO_MAX_INPUT_PIXELS = 40_000_000

export type LogoFormat = 'png' | 'jpeg' | 'webp'
export type LogoCheck = { ok: true; data: Buffer; contentType: 'image/webp' } | { ok: false; message: string }

/** The format named by the file's first bytes (its "magic number"), or null for anything else. */
export function sniffImageFormat(bytes: Uint8Array): LogoFormat | null {
  const starts = (signature: number[], offset = 0) => signature.every((byte, i) => bytes[offset + i] === byte)
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png'
  if (starts([0xff, 0xd8, 0xff])) return 'jpeg'
  // "RIFF" <size> "WEBP"
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'webp'
  return null
}

/** Checks an upload and turns it into the stored logo: square, cover-cropped from the centre, WebP. */
export async function prepareLogo(bytes: Buffer): Promise<LogoCheck> {
  if (bytes.byteLength === 0) return { ok: false, message: LOGO_MESSAGES.missing }
  if (bytes.byteLength > LOGO_MAX_BYTES) return { ok: false, message: LOGO_MESSAGES.tooLarge }
  const sniffed = sniffImageFormat(bytes)
  if (!sniffed) return { ok: false, message: LOGO_MESSAGES.type }
  // failOn 'truncated': a cut-off file is refused rather than stored half grey.
  const options = { limitInputPixels: LOGO_MAX_INPUT_PIXELS, failOn: 'truncated' } as const
  const sharp = await loadSharp()
  try {
    const metadata = await sharp(bytes, options).metadata()
    if (metadata.format !== sniffed) return { ok: false, message: LOGO_MESSAGES.type }
    if (!metadata.width || !metadata.height) return { ok: false, message: LOGO_MESSAGES.unreadable }
    if (metadata.width * metadata.height > LOGO_MAX_INPUT_PIXELS)
      return { ok: false, message: LOGO_MESSAGES.tooManyPixels }
    // A square of at most LOGO_SIZE, never enlarged: a small logo keeps its pixels.
    const side = Math.min(LOGO_SIZE, metadata.width, metadata.height)
    const data = await sharp(bytes, options)
      .rotate() // honour the camera's orientation tag before cropping
      .resize(side, side, { fit: 'cover', position: 'centre' })
      .webp({ quality: 85 })
      .toBuffer()
    return { ok: true, data, contentType: 'image/webp' }
  } catch (error) {
    const message = error instanceof Error ? error.message : ''
    if (/pixel limit/i.test(message)) return { ok: false, message: LOGO_MESSAGES.tooManyPixels }
    return { ok: false, message: LOGO_MESSAGES.unreadable }
  }
}
