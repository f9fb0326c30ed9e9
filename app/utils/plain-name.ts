/**
 * Names an owner types that go into e-mails to other people — the invitee's name, the business name — are plain
 * text: letters, digits, spaces and common punctuation, no links or addresses, and mails show them as quoted data
 * (docs/product/hardening.md, "Names in e-mails";
 * docs/decisions/052-invitations-hold-no-address.md).
 * A mail from Stampwise's sender must not carry an owner's sentence, link or address as if it were ours.
 */
const PLAIN = /^[\p{L}\p{M}\p{N} .,'’&()!?-]+$/u
// A dot between a letter or digit and two letters reads as a domain ("evil.com", "www.x"): a link in all but name.
const DOMAIN_DOT = /([\p{L}\p{N}-])\.(?=\p{L}{2})/gu

export const PLAIN_NAME_MESSAGE =
  'Use letters, digits, spaces and common punctuation only: no links or e-mail addresses'

export function isPlainName(value: string): boolean {
  return PLAIN.test(value) && !new RegExp(DOMAIN_DOT.source, 'u').test(value)
}

/**
 * A name as a mail may quote it: anything outside plain text becomes a space (names saved before this rule, or
 * fields that have no such rule), a domain's dots are broken, spaces collapsed; quoted, or the fallback when
 * nothing is left.
 */
export function quotedName(value: string, fallback: string): string {
  const plain = value
    .normalize('NFC')
    .replace(/[^\p{L}\p{M}\p{N} .,'’&()!?-]/gu, ' ')
    .replace(DOMAIN_DOT, '$1 ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 60)
    .trim()
  return /[\p{L}\p{N}]/u.test(plain) ? `'${plain}'` : fallback
}
