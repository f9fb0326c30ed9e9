import { redirect } from '@remix-run/node'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { cardDesignView } from '#app/services/cards/card-design.server.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { nextStep, stepPath, type OnboardingStep } from '#app/utils/card-design-steps.ts'
import { advanceOnboardingStep, finishOnboarding } from '#models/card-onboarding.server.ts'

/**
 * The steps after the design: each page names its card by `?cardId=`. No id goes back to /main (which resumes the
 * unfinished card); another owner's card or a malformed id is a 404. A card still without its reward is sent to
 * the reward step, since the pages after it show a card holders can join.
 */
export async function requireStepCard(request: Request, { needsReward = true } = {}) {
  const userId = await requireUserId(request)
  const cardId = new URL(request.url).searchParams.get('cardId')
  if (!cardId) throw redirect('/main')
  const card = await requireOwnedCard(userId, cardId, { view: 'design' })
  if (needsReward && card.status === 'draft') throw redirect(stepPath('card_reward', card.id))
  return { userId, card }
}

export async function loadStepPage(request: Request) {
  const { userId, card } = await requireStepCard(request)
  return {
    card: { id: card.id, slug: card.slug, title: card.title, businessName: card.businessName },
    design: await cardDesignView(userId, card),
  }
}

/** The step's Continue button: the onboarding moves on (so leaving now resumes at the next page) and shows it. */
export async function continueFromStep(request: Request, step: OnboardingStep) {
  const { userId, card } = await requireStepCard(request)
  const next = nextStep(step)
  if (!next) {
    await finishOnboarding(userId, card.id)
    return redirect('/account')
  }
  await advanceOnboardingStep(userId, card.id, next)
  return redirect(stepPath(next, card.id))
}
