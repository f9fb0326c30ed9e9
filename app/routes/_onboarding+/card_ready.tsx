import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { CardPreview } from '#app/components/card-preview.tsx'
import { type OnboardingHandle } from '#app/utils/card-design-steps.ts'
import { rewardInSentence } from '#app/utils/reward-in-sentence.ts'
import { StepActions } from './__step-parts.tsx'
import { continueFromStep, loadStepPage } from './__step.server.ts'

export const handle: OnboardingHandle = { onboardingStep: 'card_ready' }

/** The finished card, and what happens next. */
export async function loader({ request }: LoaderFunctionArgs) {
  return loadStepPage(request)
}

export async function action({ request }: ActionFunctionArgs) {
  return continueFromStep(request, 'card_ready')
}

export default function CardReadyStep() {
  const { card, design } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>Your card is ready</h1>
      <p className="lead">
        {card.title} is live: customers of {card.businessName} can get it on their phone from now on.
      </p>
      <CardPreview card={design} />
      <h2>What happens next</h2>
      <ol className="onboarding-list">
        <li>You get the card’s QR code, to print or show on a screen.</li>
        <li>A customer scans it and taps ‘Get my card’: the card opens in their browser, no app and no sign-up.</li>
        <li>
          At each visit you stamp their card from your phone. When it is full, they get{' '}
          {rewardInSentence(design.reward) || 'the reward'}.
        </li>
      </ol>
      <p>
        You can change the design or the reward at any time from the <Link to={`/account/${card.id}`}>card’s page</Link>
        .
      </p>
      <StepActions cardId={card.id} back="card_reward" continueLabel="Get my QR code" />
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Your card is ready — Stampwise' }]
