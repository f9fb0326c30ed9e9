/**
 * A web app manifest's `short_name`, the name under the icon on a home screen: at most 12 characters (what
 * launchers show without cutting, and what Lighthouse checks), cut at a word's end where one is close, with no
 * space or dangling punctuation at either end. The first candidate with more than spaces and punctuation wins.
 */
export const SHORT_NAME_MAX_LENGTH = 12
const FALLBACK = 'Stamp card'

export function manifestShortName(...candidates: (string | null | undefined)[]): string {
  for (const candidate of candidates) {
    const name = shorten((candidate ?? '').trim().replace(/\s+/g, ' '))
    if (/[^\s\p{P}]/u.test(name)) return name
  }
  return FALLBACK
}

function shorten(name: string): string {
  // By code points, so an emoji or an accented letter is never split in half.
  const chars = Array.from(name)
  if (chars.length <= SHORT_NAME_MAX_LENGTH) return name
  // One character more: a space right after the 12th means the 12 end a word.
  const head = chars.slice(0, SHORT_NAME_MAX_LENGTH + 1).join('')
  const space = head.lastIndexOf(' ')
  const cut = space >= 4 ? head.slice(0, space) : chars.slice(0, SHORT_NAME_MAX_LENGTH).join('')
  return cut.replace(/[\s\p{P}\p{S}]+$/u, '') || cut.trimEnd()
}
