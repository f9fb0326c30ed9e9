import { checkCardSlot } from '#app/services/billing/plan-gate.server.ts'
import { cardDesignView } from '#app/services/cards/card-design.server.ts'
import { isOnboardingStep, stepPath } from '#app/utils/card-design-steps.ts'
import {
  discardUnfinishedDraft,
  findOwnerCard,
  findUnfinishedOwnerCard,
  finishOnboarding,
  type OnboardingCard,
} from '#models/card-onboarding.server.ts'

/**
 * 'Create a card' with an earlier card's setup unfinished: the owner chooses to continue it or to start a new one
 * (docs/decisions/030-unfinished-card-choice.md). Starting anew deletes an unfinished draft (no reward yet, so no
 * holder has it) and keeps a card holders can already join, marking its setup done so it is not offered again.
 */
export type StartNew = { allowed: true; discardsDraft: boolean } | { allowed: false; message: string; ended: boolean }

export type UnfinishedCardChoice = {
  card: { id: string; title: string; isDraft: boolean }
  design: Awaited<ReturnType<typeof cardDesignView>>
  continuePath: string
  startNew: StartNew
}

/** The owner's newest unfinished card and what starting a new one would do; null when there is none. */
export async function unfinishedCardChoice(userId: string): Promise<UnfinishedCardChoice | null> {
  const card = await findUnfinishedOwnerCard(userId)
  if (!card) return null
  return {
    card: { id: card.id, title: card.title || card.businessName || 'Untitled card', isDraft: card.status === 'draft' },
    design: await cardDesignView(userId, card),
    continuePath: stepPath(isOnboardingStep(card.onboardingStep) ? card.onboardingStep : 'main', card.id),
    startNew: await startNewRule(userId, card),
  }
}

/** Within the plan's card limit, counting the card limit after a draft is deleted (a draft counts toward it). */
async function startNewRule(userId: string, card: OnboardingCard): Promise<StartNew> {
  const discardsDraft = card.status === 'draft'
  const slot = await checkCardSlot(userId)
  if (slot.allowed || (discardsDraft && slot.active - 1 < slot.limit)) return { allowed: true, discardsDraft }
  return { allowed: false, message: slot.message, ended: slot.ended }
}

export type StartNewOutcome =
  | { status: 'not-found' }
  | { status: 'limit'; message: string; ended: boolean }
  | { status: 'started'; discarded: string | null; kept: string | null }

/** 'Start a new card': frees the owner from the unfinished card named by the form, as the choice page said. */
export async function startNewCard(userId: string, cardId: string): Promise<StartNewOutcome> {
  const card = await findOwnerCard(userId, cardId)
  if (!card) return { status: 'not-found' }
  const title = card.title || card.businessName || 'Untitled card'
  // Already finished (an earlier click of the same button, or the last step meanwhile): nothing left to do.
  if (card.onboardingStep === null) return { status: 'started', discarded: null, kept: null }
  const rule = await startNewRule(userId, card)
  if (!rule.allowed) return { status: 'limit', message: rule.message, ended: rule.ended }
  if (rule.discardsDraft) {
    return { status: 'started', discarded: (await discardUnfinishedDraft(userId, card.id)) ? title : null, kept: null }
  }
  await finishOnboarding(userId, card.id)
  return { status: 'started', discarded: null, kept: title }
}
