/**
 * The one public address of a card's logo (docs/product/holders-and-cards.md; Google Wallet's class points at it):
 * every page that draws the card (join page, account, QR page, poster, scan page) points its CardPreview here. `v` is
 * the card's version, so the image is cached for good until the card changes.
 */
export function cardLogoUrl(card: { id: string; hasLogo: boolean; version: number }): string | null {
  return card.hasLogo ? `/cards/${card.id}/logo.png?v=${Math.round(card.version).toString(36)}` : null
}
