import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { z } from 'zod'
import { DesignForm } from '#app/components/card-design-form.tsx'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { checkCardSlot } from '#app/services/billing/plan-gate.server.ts'
import { readDesignFormData, readLogoChoice } from '#app/services/cards/card-design-form.server.ts'
import { cardDesignView, saveCardDesign } from '#app/services/cards/card-design.server.ts'
import { CARD_NOT_FOUND, requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { CardDesignSchema, DEFAULT_CARD_DESIGN } from '#app/utils/card-design-schema.ts'
import { stepPath, type OnboardingHandle } from '#app/utils/card-design-steps.ts'
import { CardLimitNotice } from './__card-limit-notice.tsx'
import { UnfinishedCardChoicePage } from './__unfinished-card-choice.tsx'
import { startNewCard, unfinishedCardChoice } from './__unfinished-card.server.ts'

/** 'Start a new card' on the question about an unfinished card; the design form itself has CardDesignSchema. */
export const StartNewCardSchema = z.object({ intent: z.literal('start-new'), cardId: z.string() })

export const handle: OnboardingHandle = { onboardingStep: 'main' }

/**
 * The design step. Without `?cardId=`: when an earlier card's setup is unfinished, the owner is asked whether to
 * continue it or start a new one (never reopened silently); else, or with `?new`, an empty designer (when the
 * plan's card limit allows one more card). With `?cardId=`: that card's design, prefilled.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const url = new URL(request.url)
  const cardId = url.searchParams.get('cardId')
  if (cardId !== null) {
    const card = await requireOwnedCard(userId, cardId, { view: 'design' })
    return {
      unfinished: null,
      refusal: null,
      card: { id: card.id, status: card.status },
      design: await cardDesignView(userId, card),
    }
  }
  const unfinished = url.searchParams.has('new') ? null : await unfinishedCardChoice(userId)
  if (unfinished) return { unfinished, refusal: null, card: null, design: DEFAULT_CARD_DESIGN }
  const cardSlot = await checkCardSlot(userId)
  if (!cardSlot.allowed)
    return {
      unfinished: null,
      refusal: { message: cardSlot.message, ended: cardSlot.ended },
      card: null,
      design: DEFAULT_CARD_DESIGN,
    }
  return { unfinished: null, refusal: null, card: null, design: { ...DEFAULT_CARD_DESIGN, logoUrl: null } }
}

export type DesignActionData = {
  result?: SubmissionResult<string[]>
  limit?: { message: string; ended: boolean }
  /** A 'Start a new card' post that names no card (a hand-made request): said on whichever page shows. */
  startNewError?: string
}
const START_NEW_UNREADABLE = 'Choose again: continue your unfinished card or start a new one.'

export async function action({ request }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const cardId = new URL(request.url).searchParams.get('cardId')
  const read = await readDesignFormData(request)
  if (!('logoError' in read) && read.formData.get('intent') === 'start-new')
    return startNewCardAction(userId, read.formData)
  if ('logoError' in read) {
    const reply = parseWithZod(new FormData(), { schema: CardDesignSchema }).reply({
      fieldErrors: { logo: [read.logoError] },
    })
    return formReply<DesignActionData>({ result: reply })
  }
  const submission = parseWithZod(read.formData, { schema: CardDesignSchema })
  if (submission.status !== 'success') return formReply<DesignActionData>({ result: submission.reply() })
  const choice = await readLogoChoice(read.formData)
  if ('logoError' in choice)
    return formReply<DesignActionData>({ result: submission.reply({ fieldErrors: { logo: [choice.logoError] } }) })

  const outcome = await saveCardDesign({ userId, cardId, design: submission.value, logo: choice.logo })
  if (outcome.status === 'not-found') throw notFound(CARD_NOT_FOUND)
  if (outcome.status === 'limit') {
    const limit = { message: outcome.message, ended: outcome.ended }
    return formReply<DesignActionData>({ result: submission.reply(), limit }, 403)
  }
  return redirect(stepPath('card_reward', outcome.card.id))
}

/** Deletes the unfinished draft (or keeps a card holders can join), then opens an empty designer. */
async function startNewCardAction(userId: string, formData: FormData) {
  const submission = parseWithZod(formData, { schema: StartNewCardSchema })
  if (submission.status !== 'success')
    return data<DesignActionData>({ startNewError: START_NEW_UNREADABLE }, { status: 400 })
  const outcome = await startNewCard(userId, submission.value.cardId)
  if (outcome.status === 'not-found') throw notFound(CARD_NOT_FOUND)
  if (outcome.status === 'limit')
    return data<DesignActionData>({ limit: { message: outcome.message, ended: outcome.ended } }, { status: 403 })
  if (outcome.discarded)
    return redirectWithToast('/main?new', { message: `The unfinished draft “${outcome.discarded}” is deleted.` })
  if (outcome.kept) return redirectWithToast('/main?new', { message: `“${outcome.kept}” stays in your cards.` })
  return redirect('/main?new')
}

export default function DesignStep() {
  const { unfinished, refusal, card, design } = useLoaderData<typeof loader>()
  const actionData = useActionData<DesignActionData>()
  const limit = refusal ?? actionData?.limit
  const startNewError = actionData?.startNewError ? (
    <p className="form-message form-message--error" role="alert">
      {actionData.startNewError}
    </p>
  ) : null
  if (unfinished)
    return <UnfinishedCardChoicePage choice={unfinished} limit={actionData?.limit} error={startNewError} />
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
      {startNewError}
      <DesignForm key={card?.id ?? 'new'} design={design} lastResult={actionData?.result} />
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Design your card — Stampwise' }]
