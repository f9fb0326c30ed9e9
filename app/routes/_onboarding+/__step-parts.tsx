import { Form, Link } from '@remix-run/react'
import { type ReactNode } from 'react'
import { stepPath, type OnboardingStep } from '#app/utils/card-design-steps.ts'

/**
 * The foot of a step page: back to the previous step (a plain link) and Continue (a form, so it works without
 * JavaScript).
 */
export function StepActions({
  cardId,
  back,
  continueLabel,
  children,
}: {
  cardId: string
  back?: OnboardingStep
  continueLabel: string
  children?: ReactNode
}) {
  return (
    <div className="onboarding-actions">
      {back ? (
        <Link to={stepPath(back, cardId)} className="button button--ghost">
          Back
        </Link>
      ) : null}
      {children}
      <Form method="POST">
        <button type="submit" className="button">
          {continueLabel}
        </button>
      </Form>
    </div>
  )
}
