import { multipartEntries, urlencodedEntries, type BodyCheck } from './form-entry-scan.server.ts'
import { type Refusal } from './request-refusal.server.ts'

/**
 * How many entries a form may carry, and which names it may repeat (docs/product/hardening.md, "Form entries";
 * docs/decisions/051-form-entries-and-discard-limit.md). Conform's parse of a form is quadratic in how often one name
 * repeats (30,000 repeats of `a=`, 90 KB, took 16 s), so the raw body is counted as it arrives, before anything parses
 * it, and refused past these limits.
 */
export const FORM_ENTRIES_MAX = 500

/**
 * The names a form legitimately repeats, by the address its form posts to, with the most it sends. Any other name
 * sent twice is refused.
 */
export const ALLOWED_REPEATS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  // The location form's staff checkboxes, one per staff member (Premium has 20 seats).
  '/account/locations': { staffIds: 100 },
}

/** The same for forms of one card, whose address carries the card's id. */
const CARD_FORM_REPEATS: readonly (readonly [RegExp, Readonly<Record<string, number>>])[] = [
  // What a card asks its holders: one checkbox per field (name, e-mail, phone, birthday).
  [/^\/account\/[^/]+\/holder-details$/, { fields: 4 }],
]

const allowedRepeats = (address: string) =>
  ALLOWED_REPEATS[address] ?? CARD_FORM_REPEATS.find(([pattern]) => pattern.test(address))?.[1] ?? {}

const title = 'This form could not be sent'
const again = 'Go back, reload the page and send the form again.'

export const FORM_ENTRY_MESSAGES = {
  tooMany: `The form has more than ${FORM_ENTRIES_MAX} fields, more than any form of Stampwise, so nothing was saved`,
  repeated: (name: string) =>
    `The form sends the field “${name.slice(0, 40)}” more often than this form does, so nothing was saved`,
}

/** The route's address a request posts to: a Remix data request (`/x.data`, `/_root.data`) names its page. */
export function formAddress(path: string): string {
  const page = path.replace(/\.data$/, '').replace(/\/+$/, '')
  return page === '/_root' || page === '' ? '/' : page
}

/**
 * Counts a form's entries and repeated names as its raw body arrives (`null` when the body is no form). Linear in
 * the body: each byte is looked at once, each name decoded once.
 */
export function formEntryCheck(contentType: string | undefined, path: string): BodyCheck | null {
  const type = contentType?.split(';')[0]?.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded' && type !== 'multipart/form-data') return null
  const allowed = allowedRepeats(formAddress(path))
  const seen = new Map<string, number>()
  let entries = 0
  const tooMany = (): Refusal => ({ status: 400, title, message: FORM_ENTRY_MESSAGES.tooMany, detail: again })
  const tally = {
    entry: (): Refusal | null => (++entries > FORM_ENTRIES_MAX ? tooMany() : null),
    name: (name: string): Refusal | null => {
      const times = (seen.get(name) ?? 0) + 1
      seen.set(name, times)
      if (times === 1 || times <= (Object.hasOwn(allowed, name) ? allowed[name]! : 1)) return null
      return { status: 400, title, message: FORM_ENTRY_MESSAGES.repeated(name), detail: again }
    },
  }
  return type === 'multipart/form-data' ? multipartEntries(contentType!, tally) : urlencodedEntries(tally)
}
