import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useLoaderData, type MetaFunction } from '@remix-run/react'
import { CardPreview } from '#app/components/card-preview.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { type OnboardingHandle } from '#app/utils/card-design-steps.ts'
import { rewardInSentence } from '#app/utils/reward-in-sentence.ts'
import { finishOnboarding } from '#models/card-onboarding.server.ts'
import { loadStepPage, requireStepCard } from './__step.server.ts'

export const handle: OnboardingHandle = { onboardingStep: 'win_win' }

/** The end of the onboarding: either button finishes it (nothing left to resume) and leaves. */
export async function loader({ request }: LoaderFunctionArgs) {
  return loadStepPage(request)
}

export async function action({ request }: ActionFunctionArgs) {
  const { userId, card } = await requireStepCard(request)
  const formData = await readFormData(request)
  await finishOnboarding(userId, card.id)
  return redirect(formData.get('intent') === 'card' ? `/account/${card.id}` : '/account')
}

export default function WinWinStep() {
  const { card, design } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>Win-win: you are all set</h1>
      <p className="lead">
        Your customers collect stamps for {rewardInSentence(design.reward) || 'their reward'}, and you get them coming
        back. Stamp their cards, watch your holders grow and send them a push message when you have news.
      </p>
      <CardPreview card={design} />
      <Form method="POST" className="onboarding-actions">
        <button type="submit" name="intent" value="card" className="button">
          Go to {card.title}
        </button>
        <button type="submit" name="intent" value="account" className="button button--ghost">
          Go to my account
        </button>
      </Form>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'All set — Stampwise' }]
