import { type BodyCheck } from './body-limit.server.ts'
import { type Refusal } from './request-refusal.server.ts'

/**
 * Scanners of a raw form body, fed piece by piece as it arrives, that report each entry (and its name) to a tally
 * which may refuse the form (form-entries.server.ts). Each looks at every byte once and keeps no more than the
 * name being read, so scanning is linear in the body whatever it holds.
 */
export type EntryTally = { entry: () => Refusal | null; name: (name: string) => Refusal | null }
export type { BodyCheck }

const AMPERSAND = 0x26
const EQUALS = 0x3d
/**
 * A name as `request.formData()` reads it: the body as UTF-8 text, then URLSearchParams (`+` a space, `%xx` a
 * byte). Names end at ASCII bytes, so decoding each alone gives what decoding the whole body gives.
 */
export function decodeFormName(raw: Buffer): string {
  const text = raw.toString('utf8')
  if (!text.includes('+') && !text.includes('%')) return text
  return new URLSearchParams(text).keys().next().value ?? ''
}

/**
 * `application/x-www-form-urlencoded`: entries are the non-empty runs between `&`, a name runs to its first `=`.
 * Runs are found with indexOf, each within its own run, so no byte is searched twice.
 */
export function urlencodedEntries(tally: EntryTally): BodyCheck {
  let name: Buffer[] = []
  let inValue = false
  let empty = true
  const finishEntry = () => {
    if (empty) return null
    const refusal = tally.entry() ?? tally.name(decodeFormName(name.length === 1 ? name[0]! : Buffer.concat(name)))
    name = []
    inValue = false
    empty = true
    return refusal
  }
  return {
    write(chunk) {
      for (let at = 0; at <= chunk.length;) {
        const ampersand = chunk.indexOf(AMPERSAND, at)
        const end = ampersand === -1 ? chunk.length : ampersand
        if (end > at) {
          empty = false
          if (!inValue) {
            const run = chunk.subarray(at, end)
            const equals = run.indexOf(EQUALS)
            name.push(equals === -1 ? run : run.subarray(0, equals))
            inValue = equals !== -1
          }
        }
        if (ampersand === -1) return null
        const refusal = finishEntry()
        if (refusal) return refusal
        at = ampersand + 1
      }
      return null
    },
    end: () => finishEntry(),
  }
}

/** The `boundary` parameter as the WHATWG MIME type parser reads it (the first one; a quoted string unquoted). */
export function multipartBoundary(contentType: string): string | null {
  for (const match of contentType.matchAll(/;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
    if (match[1]!.toLowerCase() !== 'boundary') continue
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!.trim()
    return value || null
  }
  return null
}

const CRLF_DASHES = Buffer.from('\r\n--')
const HEADERS_END = Buffer.from('\r\n\r\n')
/** Longer part headers than this are no browser's: their names are not read (the entry count still holds). */
const HEADERS_MAX = 16 * 1024

/**
 * `multipart/form-data`. Entries are counted as every `CRLF--` in the body (every delimiter starts so, whatever
 * boundary a parser reads from the header), less the closing one: an upper bound no parser can exceed. Names are
 * read from the parts' Content-Disposition headers, between the delimiters of the declared boundary.
 */
export function multipartEntries(contentType: string, tally: EntryTally): BodyCheck {
  const boundary = multipartBoundary(contentType)
  const delimiter = boundary ? Buffer.from(`\r\n--${boundary}`) : null
  // The body as if it began with CRLF, so its first delimiter (`--boundary` at the very start) is found like the rest.
  let tail: Buffer = Buffer.from('\r\n')
  let delimiters = 0
  let pending: Buffer = Buffer.from('\r\n')
  let state: 'seek' | 'headers' | 'done' = delimiter ? 'seek' : 'done'
  let headersSearched = 0

  const countDelimiters = (chunk: Buffer): Refusal | null => {
    // `CRLF--` cannot overlap itself, so the last 3 bytes of what came before are all a match may start in.
    const joined = Buffer.concat([tail, chunk])
    for (let at = joined.indexOf(CRLF_DASHES); at !== -1; at = joined.indexOf(CRLF_DASHES, at + CRLF_DASHES.length)) {
      if (++delimiters > 1) {
        const refusal = tally.entry()
        if (refusal) return refusal
      }
    }
    tail = joined.subarray(Math.max(0, joined.length - (CRLF_DASHES.length - 1)))
    return null
  }

  const readNames = (chunk: Buffer): Refusal | null => {
    if (!delimiter || state === 'done') return null
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
    for (;;) {
      if (state === 'seek') {
        const at = pending.indexOf(delimiter)
        if (at === -1) {
          pending = pending.subarray(Math.max(0, pending.length - (delimiter.length - 1)))
          return null
        }
        pending = pending.subarray(at + delimiter.length)
        state = 'headers'
      }
      // After a delimiter: `--` closes the form; else the boundary's line, then the part's headers to an empty line.
      if (pending.length < 2) return null
      if (pending[0] === 0x2d && pending[1] === 0x2d) {
        state = 'done'
        return null
      }
      // Searched from where the last search stopped: headers that arrive a byte at a time are still read once.
      const end = pending.indexOf(HEADERS_END, Math.max(0, headersSearched - (HEADERS_END.length - 1)))
      if (end === -1) {
        headersSearched = pending.length
        if (pending.length > HEADERS_MAX) state = 'done'
        return null
      }
      headersSearched = 0
      const name = dispositionName(pending.subarray(0, end).toString('utf8'))
      const refusal = name === null ? null : tally.name(name)
      if (refusal) return refusal
      // The part's value starts after the empty line; the CRLF that ends it begins the next delimiter.
      pending = pending.subarray(end + HEADERS_END.length)
      state = 'seek'
    }
  }

  return {
    write: (chunk) => countDelimiters(chunk) ?? readNames(chunk),
    end: () => null,
  }
}

/** The `name` parameter of a part's Content-Disposition header. */
function dispositionName(headers: string): string | null {
  const disposition = headers.split('\r\n').find((line) => /^content-disposition\s*:/i.test(line))
  const match = disposition?.match(/;\s*name\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/i)
  if (!match) return null
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]!
}
