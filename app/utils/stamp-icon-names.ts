/**
 * The stamp icons of docs/product/holders-and-cards.md by name: what a card may choose (the drawings are in
 * stamp-icon-drawings.ts).
 */
export const STAMP_ICONS = ['star', 'heart', 'coffee', 'gift', 'check', 'paw', 'scissors', 'pizza'] as const
export type StampIcon = (typeof STAMP_ICONS)[number]

export function isStampIcon(value: string): value is StampIcon {
  return (STAMP_ICONS as readonly string[]).includes(value)
}
