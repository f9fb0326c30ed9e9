import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { DesignForm } from '#app/components/card-design-form.tsx'
import { CardDesignSchema, DEFAULT_CARD_DESIGN } from '#app/utils/card-design-schema.ts'
import { isOnboardingStep, stepPath, type OnboardingHandle } from '#app/utils/card-design-steps.ts'
import { readDesignFormData, readLogoChoice } from '#app/utils/card-design-form.server.ts'
import { cardDesignView, saveCardDesign } from '#app/utils/card-design.server.ts'
import { checkCardSlot } from '#app/utils/plan-gate.server.ts'
import { requireUserId } from '#app/utils/session.server.ts'
import { findOwnerCard, findUnfinishedOwnerCard, type OnboardingCard } from '#models/card-onboarding.server.ts'
import { CardLimitNotice } from './__card-limit-notice.tsx'

export const handle: OnboardingHandle = { onboardingStep: 'main' }

/**
 * The design step. Without `?cardId=` it resumes the owner's unfinished card at the step they stopped at, or opens
 * an empty designer (when the plan's card limit allows one more card); with it, the card's design, prefilled.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const cardId = new URL(request.url).searchParams.get('cardId')
  let card: OnboardingCard | null = null
  if (cardId !== null) {
    card = await findOwnerCard(userId, cardId)
    if (!card) throw new Response('Card not found', { status: 404 })
  } else {
    card = await findUnfinishedOwnerCard(userId)
    if (card && isOnboardingStep(card.onboardingStep) && card.onboardingStep !== 'main') {
      throw redirect(stepPath(card.onboardingStep, card.id))
    }
  }
  if (!card) {
    const cardSlot = await checkCardSlot(userId)
    if (!cardSlot.allowed) return { refusal: { message: cardSlot.message, ended: cardSlot.ended }, card: null, design: DEFAULT_CARD_DESIGN }
    return { refusal: null, card: null, design: { ...DEFAULT_CARD_DESIGN, logoUrl: null } }
  }
  return { refusal: null, card: { id: card.id, status: card.status }, design: await cardDesignView(userId, card) }
}

export type DesignActionData = { result: SubmissionResult<string[]>; limit?: { message: string; ended: boolean } }

export async function action({ request }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const cardId = new URL(request.url).searchParams.get('cardId')
  const read = await readDesignFormData(request)
  if ('logoError' in read) {
    const reply = parseWithZod(new FormData(), { schema: CardDesignSchema }).reply({ fieldErrors: { logo: [read.logoError] } })
    return data<DesignActionData>({ result: reply }, { status: 400 })
  }
  const submission = parseWithZod(read.formData, { schema: CardDesignSchema })
  if (submission.status !== 'success') return data<DesignActionData>({ result: submission.reply() }, { status: 400 })
  const choice = await readLogoChoice(read.formData)
  if ('logoError' in choice) return data<DesignActionData>({ result: submission.reply({ fieldErrors: { logo: [choice.logoError] } }) }, { status: 400 })

  const outcome = await saveCardDesign({ userId, cardId, design: submission.value, logo: choice.logo })
  if (outcome.status === 'not-found') throw new Response('Card not found', { status: 404 })
  if (outcome.status === 'limit') {
    const limit = { message: outcome.message, ended: outcome.ended }
    return data<DesignActionData>({ result: submission.reply(), limit }, { status: 403 })
  }
  return redirect(stepPath('card_reward', outcome.card.id))
}

export default function DesignStep() {
  const { refusal, card, design } = useLoaderData<typeof loader>()
  const actionData = useActionData<DesignActionData>()
  const limit = refusal ?? actionData?.limit
  if (refusal) return <CardLimitNotice message={refusal.message} ended={refusal.ended} />
  return (
    <>
      <h1>{card ? 'Your card’s design' : 'Design your stamp card'}</h1>
      <p className="lead">
        Choose how your card looks to your customers. You can change all of this later.
        {card ? (
          <>
            {' '}
            <Link to={stepPath('card_reward', card.id)}>Continue to the reward</Link>
          </>
        ) : null}
      </p>
      {limit ? <CardLimitNotice message={limit.message} ended={limit.ended} inline /> : null}
      <DesignForm key={card?.id ?? 'new'} design={design} lastResult={actionData?.result} />
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Design your card — Stampwise' }]
