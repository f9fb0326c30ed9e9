import { CARD_DESIGN_FIELDS, pickFields } from '#app/utils/card-design-fields.ts'
import { type OwnedCard } from '#models/card.server.ts'
import { joinUrl } from './card-qr.server.ts'

/** A card as the JSON calls answer it (docs/product/contracts.md: camelCase fields, plus its join address). */
export function cardJson(card: OwnedCard) {
  return {
    id: card.id,
    slug: card.slug,
    status: card.status,
    ...pickFields(card, CARD_DESIGN_FIELDS),
    reward: card.reward,
    joinUrl: joinUrl(card.slug),
  }
}
