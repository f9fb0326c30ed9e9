import zlib from 'node:zlib'
import sharp from 'sharp'

/**
 * Image files that must never become a logo (issue #8, "Bad input": wrong type, oversize, truncated image,
 * decompression bomb), and one that must, as the control that shows the upload works at all.
 */
function pngChunk(type: string, data: Buffer) {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(zlib.crc32(typeAndData))
  return Buffer.concat([length, typeAndData, crc])
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/**
 * A PNG of a few hundred bytes whose header declares `side` × `side` pixels (greyscale, 8 bits): decoding it would
 * take side² bytes of memory (2.5 GB for 50000), while its data holds a few rows of zeros.
 */
export function decompressionBombPng(side = 50_000) {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(side, 0)
  header.writeUInt32BE(side, 4)
  header.writeUInt8(8, 8) // bit depth
  header.writeUInt8(0, 9) // greyscale
  const rows = zlib.deflateSync(Buffer.alloc((side + 1) * 4))
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('IDAT', rows),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/** A real photo-like PNG (noise does not compress), `side` pixels square. */
export async function noisyPng(side: number) {
  const pixels = Buffer.alloc(side * side * 3)
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 2654435761) >>> 24
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer()
}

/** The first half of a PNG: its header is whole, its pixel data cut off. */
export async function truncatedPng() {
  const whole = await noisyPng(200)
  return whole.subarray(0, Math.floor(whole.length / 2))
}

/** Just over the 2 MB limit: a PNG signature and header, then filler. */
export function oversizePng(bytes = 2 * 1024 * 1024 + 1024) {
  const file = Buffer.alloc(bytes, 0x41)
  PNG_SIGNATURE.copy(file)
  return file
}

/** Files that are no PNG, JPEG or WebP, each named and typed as a PNG. */
export const WRONG_TYPE_FILES = {
  'a PDF': Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n'),
  'an SVG with a script': Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>',
  ),
  'a GIF': Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64'),
  'a shell script': Buffer.from('#!/bin/sh\nrm -rf /\n'),
}
