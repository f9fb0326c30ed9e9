/**
 * WCAG 2 contrast between two '#rrggbb' colours, so the card designer can warn when the card's text would be hard
 * to read on its background. 4.5:1 is the WCAG AA minimum for normal text.
 */
export const MIN_READABLE_CONTRAST = 4.5
export const CONTRAST_WARNING = 'Your text may be hard to read on this background'

const HEX = /^#([0-9a-f]{6})$/i

/** The colour's channels 0–255, or null for anything but '#rrggbb'. */
export function hexToRgb(hex: string): [number, number, number] | null {
  const match = HEX.exec(hex)
  if (!match) return null
  const value = Number.parseInt(match[1]!, 16)
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff]
}

/** WCAG relative luminance: 0 for black, 1 for white. */
export function relativeLuminance([r, g, b]: [number, number, number]): number {
  const linear = (channel: number) => {
    const c = channel / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/** From 1 (the same colour) to 21 (black on white); null when either colour is not '#rrggbb'. */
export function contrastRatio(first: string, second: string): number | null {
  const a = hexToRgb(first)
  const b = hexToRgb(second)
  if (!a || !b) return null
  const [lighter, darker] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number]
  return (lighter + 0.05) / (darker + 0.05)
}

/** Whether text in `textColor` on `backgroundColor` falls below the readable minimum (unknown colours: no warning). */
export function isHardToRead(backgroundColor: string, textColor: string): boolean {
  const ratio = contrastRatio(backgroundColor, textColor)
  return ratio !== null && ratio < MIN_READABLE_CONTRAST
}

/**
 * The warning for the owner, with the ratio so they can see how far off it is, or null when the text reads well.
 * The same words live (the designer's preview, with JavaScript) and after a submit (the page it leads to, without).
 */
export function contrastWarning(backgroundColor: string, textColor: string): string | null {
  const ratio = contrastRatio(backgroundColor, textColor)
  if (ratio === null || ratio >= MIN_READABLE_CONTRAST) return null
  // Floored, so a ratio just under the minimum never shows as "4.5:1".
  return `${CONTRAST_WARNING}: contrast ${(Math.floor(ratio * 10) / 10).toFixed(1)}:1, and ${MIN_READABLE_CONTRAST}:1 or more is easy to read.`
}
