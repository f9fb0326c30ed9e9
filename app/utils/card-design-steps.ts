/**
 * The card-creation onboarding's steps in order (docs/product/contracts.md, "Onboarding addresses"). A card's
 * onboarding_step names the page its owner returns to; null once the onboarding is finished.
 */
export const ONBOARDING_STEPS = [
  { step: 'main', label: 'Design' },
  { step: 'card_reward', label: 'Reward' },
  { step: 'card_ready', label: 'Ready' },
  { step: 'your_qr_code', label: 'QR code' },
  { step: 'easy_way', label: 'How it works' },
  { step: 'place_your_qr', label: 'Poster' },
  { step: 'win_win', label: 'Done' },
] as const
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number]['step']

export const isOnboardingStep = (value: unknown): value is OnboardingStep =>
  ONBOARDING_STEPS.some((entry) => entry.step === value)

export const stepIndex = (step: OnboardingStep) => ONBOARDING_STEPS.findIndex((entry) => entry.step === step)

export const stepPath = (step: OnboardingStep, cardId: string) => `/${step}?cardId=${encodeURIComponent(cardId)}`

/** The step after `step`, or null after the last. */
export function nextStep(step: OnboardingStep): OnboardingStep | null {
  return ONBOARDING_STEPS[stepIndex(step) + 1]?.step ?? null
}

/** Each onboarding page names its step in its route handle, for the layout's step indicator. */
export type OnboardingHandle = { onboardingStep?: OnboardingStep }
