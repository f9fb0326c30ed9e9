import QRCode from 'qrcode'
import { getEnv } from '#app/server/env.server.ts'

/** The public join address a card's QR code encodes (docs/product/holders-and-cards.md: APP_URL/c/{slug}). */
export const joinUrl = (slug: string) => `${getEnv().APP_URL}/c/${slug}`

// Error correction M: survives a scuffed or partly covered print, and keeps the code small enough to scan from
// a phone at arm's length.
const OPTIONS = { errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } } as const

export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { ...OPTIONS, type: 'svg' })
}

export function qrPng(text: string, width = 1024): Promise<Buffer> {
  return QRCode.toBuffer(text, { ...OPTIONS, type: 'png', width })
}
