import { getFormProps, getInputProps, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { CardPreview } from '#app/components/card-preview.tsx'
import { FieldErrors, FormErrors, InputField, SubmitButton } from '#app/components/forms.tsx'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import {
  getPassStampState,
  redeemReward,
  stampPass,
  undoLastStamp,
  type StampingResult,
} from '#app/services/cards/stamping.server.ts'
import scanStylesHref from '#app/styles/scan.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { CARD_DESIGN_FIELDS, pickFields } from '#app/utils/card-design-fields.ts'
import { isStampIntent, PassActionSchema, StampSchema, type StampIntent } from '#app/utils/stamping.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'
import { ScanCamera } from './__scan-camera.tsx'
import { PassResult } from './__scan-pass.tsx'

export const handle: AccountHandle = { title: 'Scan', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: scanStylesHref }]

/** The card, and the pass the last action touched (`?pass=`, after post/redirect/get) with its counters. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const url = new URL(request.url)
  const passId = url.searchParams.get('pass')
  const pass = passId ? await getPassStampState({ ownerId: userId, cardId: card.id, passId }) : null
  return {
    card: {
      id: card.id,
      ...pickFields(card, CARD_DESIGN_FIELDS),
      reward: card.reward,
      logoUrl: card.logoUrl,
    },
    pass: pass ? { ...pass, undoUntil: pass.undoUntil?.toISOString() ?? null } : null,
    // Redeem's confirmation step (a plain link, so it works without JavaScript); only an earned reward has one.
    confirmRedeem: url.searchParams.get('confirm') === 'redeem' && Boolean(pass?.rewardEarned),
  }
}

type ScanActionData = { intent: StampIntent; result: SubmissionResult<string[]> }

/**
 * Stamp (by code), Undo and Redeem (the shown pass), told apart by `intent`; refusals come back as field errors.
 * The models scope every change by owner and card, so a success proves the card is the caller's: the card is
 * looked up only before answering anything else (404 for another owner's card, never their holders' details).
 */
export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const cardId = params.cardId ?? ''
  const refuse = async (answer: ScanActionData, status: number) => {
    await requireOwnedCard(userId, cardId)
    return data<ScanActionData>(answer, { status })
  }
  // A body that is not a form (JSON, say) reads as an empty form: 400 below, not 500.
  const formData = await request.formData().catch(() => new FormData())
  // An intent sent twice is no intent: the schemas below would refuse it on a field no form shows.
  const intents = formData.getAll('intent')
  const intent = intents.length === 1 ? intents[0] : null
  if (!isStampIntent(intent)) {
    const submission = parseWithZod(formData, { schema: StampSchema })
    return refuse({ intent: 'stamp', result: submission.reply({ formErrors: ['Unknown action'] }) }, 400)
  }
  if (intent === 'stamp') {
    const submission = parseWithZod(formData, { schema: StampSchema })
    if (submission.status !== 'success') return refuse({ intent, result: submission.reply() }, 400)
    const outcome = await stampPass({
      ownerId: userId,
      cardId,
      code: submission.value.code,
      count: submission.value.count ?? 1,
    })
    if (!outcome.ok)
      return refuse(
        { intent, result: submission.reply({ fieldErrors: { [outcome.field]: [outcome.message] } }) },
        outcome.status,
      )
    return afterSuccess(cardId, outcome, `${stampWord(submission.value.count ?? 1)} given`)
  }
  const submission = parseWithZod(formData, { schema: PassActionSchema })
  if (submission.status !== 'success') return refuse({ intent, result: submission.reply() }, 400)
  const input = { ownerId: userId, cardId, passId: submission.value.passId }
  const outcome = intent === 'undo' ? await undoLastStamp(input) : await redeemReward(input)
  if (!outcome.ok)
    return refuse({ intent, result: submission.reply({ formErrors: [outcome.message] }) }, outcome.status)
  return afterSuccess(cardId, outcome, intent === 'undo' ? 'Stamp undone' : 'Reward redeemed: a new round starts')
}

const stampWord = (count: number) => (count === 1 ? '1 stamp' : `${count} stamps`)

function afterSuccess(cardId: string, outcome: Extract<StampingResult, { ok: true }>, what: string) {
  const { pass } = outcome
  const earned = pass.rewardEarned ? ' Reward earned!' : ''
  return redirectWithToast(`/account/${cardId}/scan?pass=${pass.passId}`, {
    message: `${what}: ${pass.stamps} of ${pass.stampsRequired} stamps on ${pass.shortCode}.${earned}`,
  })
}

export default function ScanPage() {
  const { card, pass, confirmRedeem } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ScanActionData | undefined
  const resultFor = (intent: StampIntent) => (actionData?.intent === intent ? actionData.result : undefined)
  return (
    <div className="scan-page">
      <h1>Scan</h1>
      <p className="lead">
        Stamp a holder’s pass of <strong>{card.title || 'your card'}</strong>: scan their QR code or type the code
        printed under it.
      </p>
      <div className="scan-layout">
        <section className="panel scan-form-panel" aria-labelledby="scan-form-title">
          <h2 id="scan-form-title">Give a stamp</h2>
          <StampForm
            key={pass ? `${pass.passId}-${pass.stamps}-${pass.rewardsRedeemed}` : 'none'}
            lastResult={resultFor('stamp')}
          />
        </section>
        {pass ? (
          <PassResult
            key={`${pass.passId}-${pass.stamps}-${pass.rewardsRedeemed}`}
            card={card}
            pass={pass}
            confirmRedeem={confirmRedeem}
            undoResult={resultFor('undo')}
            redeemResult={resultFor('redeem')}
          />
        ) : (
          <>
            {/* Undo or Redeem refused for a pass the page no longer shows: the refusal has no form to show it. */}
            {actionData && actionData.intent !== 'stamp' ? (
              <FormErrors
                id="pass-action-errors"
                errors={Object.values(actionData.result.error ?? {}).flatMap((messages) => messages ?? [])}
              />
            ) : null}
            <CardPreview card={card} size="small" />
          </>
        )}
      </div>
    </div>
  )
}

function StampForm({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useSchemaForm(StampSchema, { id: 'stamp-form', lastResult })
  const { key: countKey, ...countProps } = getInputProps(fields.count, { type: 'number' })
  return (
    <Form method="POST" className="form scan-form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="stamp" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <ScanCamera formId={form.id} codeInputId={fields.code.id} />
      <InputField meta={fields.code} label="Pass code" hint="8 letters and digits, in any case" autoComplete="off" />
      <div className="field scan-form__count">
        <label htmlFor={fields.count.id}>Stamps to give</label>
        <input key={countKey} {...countProps} inputMode="numeric" placeholder="1" />
        <FieldErrors id={fields.count.errorId} errors={fields.count.errors} />
      </div>
      <SubmitButton pendingLabel="Stamping…">Give stamp</SubmitButton>
    </Form>
  )
}

export const meta: MetaFunction = () => [{ title: 'Scan — Stampwise' }]
