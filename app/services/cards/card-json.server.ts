import { type OwnedCard } from '#models/card.server.ts'
import { joinUrl } from './card-qr.server.ts'

/** A card as the JSON calls answer it (DECISIONS.md, "Contracts": camelCase fields, plus its join address). */
export function cardJson(card: OwnedCard) {
  return {
    id: card.id,
    slug: card.slug,
    status: card.status,
    title: card.title,
    businessName: card.businessName,
    stampsRequired: card.stampsRequired,
    backgroundColor: card.backgroundColor,
    textColor: card.textColor,
    stampIcon: card.stampIcon,
    reward: card.reward,
    joinUrl: joinUrl(card.slug),
  }
}
