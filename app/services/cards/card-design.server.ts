import { enqueueWalletUpdates } from '#app/server/job-queue.server.ts'
import { checkCardSlot } from '#app/services/billing/plan-gate.server.ts'
import { CARD_DESIGN_FIELDS, pickFields } from '#app/utils/card-design-fields.ts'
import { type CardDesignInput, type CardRewardInput } from '#app/utils/card-design-schema.ts'
import {
  advanceOnboardingStep,
  createDraftCard,
  findOwnerCard,
  findOwnerCardLogo,
  saveCardReward,
  updateCardDesign,
  type CardLogo,
  type OnboardingCard,
} from '#models/card-onboarding.server.ts'
import { raiseNotice } from '#models/notice.server.ts'
import { joinUrl, qrSvg } from './card-qr.server.ts'

/** The card builder's rules, shared by the onboarding pages and the /api/onboarding calls. */
export type DesignOutcome =
  | { status: 'created' | 'updated'; card: OnboardingCard }
  | { status: 'limit'; message: string; ended: boolean }
  | { status: 'not-found' }

/**
 * Saves a card's design: a new draft card (within the plan's card limit) when no card id is given, else the
 * owner's card with that id. Either way the onboarding continues at the reward step.
 */
export async function saveCardDesign({
  userId,
  cardId,
  design,
  logo = null,
}: {
  userId: string
  cardId?: string | null
  design: CardDesignInput
  logo?: CardLogo | 'remove' | null
}): Promise<DesignOutcome> {
  if (cardId) {
    const card = await findOwnerCard(userId, cardId)
    if (!card) return { status: 'not-found' }
    await updateCardDesign(userId, card.id, design, logo)
    // The card's passes in Apple Wallet were queued an update by the change (migration 0010): send it now.
    await enqueueWalletUpdates()
    return { status: 'updated', card: (await findOwnerCard(userId, card.id))! }
  }
  const slot = await checkCardSlot(userId)
  if (!slot.allowed) return { status: 'limit', message: slot.message, ended: slot.ended }
  return { status: 'created', card: await createDraftCard(userId, design, logo === 'remove' ? null : logo) }
}

/** Saves the reward and terms: the card becomes active, and the owner's first active card raises its notice. */
export async function saveReward({
  userId,
  card,
  reward,
}: {
  userId: string
  card: OnboardingCard
  reward: CardRewardInput
}) {
  const { firstCardActivated } = await saveCardReward(userId, card.id, reward)
  await enqueueWalletUpdates()
  await advanceOnboardingStep(userId, card.id, 'card_ready')
  if (firstCardActivated) {
    await raiseNotice({
      userId,
      kind: 'first_card_ready',
      message: `Your first card “${card.title}” is ready: print its QR code and welcome your first holders.`,
      link: `/account/${card.id}`,
      dedupeKey: `first-card-ready:${userId}`,
    })
  }
  return (await findOwnerCard(userId, card.id))!
}

/** The card as the JSON calls answer it. */
export function cardAnswer(card: OnboardingCard) {
  return {
    id: card.id,
    slug: card.slug,
    ...pickFields(card, CARD_DESIGN_FIELDS),
    status: card.status,
    reward: card.reward,
    terms: card.terms,
    hasLogo: card.logoContentType !== null,
    joinUrl: joinUrl(card.slug),
  }
}

/** The card's design for CardPreview, the logo inlined (the builder's pages are the owner's only). */
export async function cardDesignView(userId: string, card: OnboardingCard) {
  const logo = card.logoContentType ? await findOwnerCardLogo(userId, card.id) : null
  return {
    ...pickFields(card, CARD_DESIGN_FIELDS),
    reward: card.reward,
    logoUrl: logo ? `data:${logo.contentType};base64,${logo.data.toString('base64')}` : null,
  }
}

/** The public join address the card's QR code encodes, and the code itself as SVG markup (card-qr.server.ts). */
export const cardJoinUrl = (slug: string) => joinUrl(slug)
export const cardQrSvg = (slug: string) => qrSvg(joinUrl(slug))
