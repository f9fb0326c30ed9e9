/**
 * A card's design, as the design step sets it (CardDesignSchema) and CardPreview draws it, and its content: the
 * design with the reward and its terms, all an admin's edit may change. One list for the models' attribute lists,
 * the JSON answers and the loaders, so a new design field is added in one place. In the forms' order.
 */
export const CARD_DESIGN_FIELDS = [
  'businessName',
  'title',
  'stampsRequired',
  'backgroundColor',
  'textColor',
  'stampIcon',
] as const
export type CardDesignField = (typeof CARD_DESIGN_FIELDS)[number]

export const CARD_CONTENT_FIELDS = [...CARD_DESIGN_FIELDS, 'reward', 'terms'] as const
export type CardContentField = (typeof CARD_CONTENT_FIELDS)[number]

/** Just the named fields of a record (a loader or a JSON answer never passes a whole row on). */
export function pickFields<T, K extends keyof T>(source: T, fields: readonly K[]): Pick<T, K> {
  return Object.fromEntries(fields.map((field) => [field, source[field]])) as Pick<T, K>
}
