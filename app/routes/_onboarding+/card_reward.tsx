import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, type MetaFunction } from '@remix-run/react'
import { RewardFields } from '#app/components/card-design-form.tsx'
import { CardPreview } from '#app/components/card-preview.tsx'
import { ContrastWarning } from '#app/components/contrast-warning.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { cardDesignView, saveReward } from '#app/services/cards/card-design.server.ts'
import { progressOf, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { CardRewardSchema } from '#app/utils/card-design-schema.ts'
import { stepPath, type OnboardingHandle } from '#app/utils/card-design-steps.ts'
import { requireStepCard } from './__step.server.ts'

export const handle: OnboardingHandle = { onboardingStep: 'card_reward' }

/** The reward step: what a full card earns and its terms. Saving makes the card active: holders can join. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { userId, card } = await requireStepCard(request, { needsReward: false })
  return { card: { id: card.id, reward: card.reward, terms: card.terms }, design: await cardDesignView(userId, card) }
}

type RewardActionData = { result: SubmissionResult<string[]> }

export async function action({ request }: ActionFunctionArgs) {
  const { userId, card } = await requireStepCard(request, { needsReward: false })
  const submission = parseWithZod(await readFormData(request), { schema: CardRewardSchema })
  if (submission.status !== 'success') return formReply<RewardActionData>({ result: submission.reply() })
  await saveReward({ userId, card, reward: submission.value })
  return redirect(stepPath('card_ready', card.id))
}

export default function RewardStep() {
  const { card, design } = useLoaderData<typeof loader>()
  const actionData = useActionData<RewardActionData>()
  const navigation = useNavigation()
  // useSchemaForm's set-up, with the saved reward as the starting values.
  const [form, fields] = useForm({
    id: 'card-reward',
    lastResult: actionData?.result,
    defaultValue: { reward: card.reward, terms: card.terms },
    constraint: getZodConstraint(CardRewardSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: CardRewardSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  return (
    <>
      <h1>Choose the reward</h1>
      <p className="lead">
        What does a customer get when the card is full? Say it plainly: ‘A free coffee of your choice’, ‘10% off your
        next haircut’.
      </p>
      <div className="designer">
        <Form method="POST" className="form designer__form" {...getFormProps(form)}>
          <RewardFields reward={fields.reward} terms={fields.terms} />
          <div className="onboarding-actions">
            <Link to={stepPath('main', card.id)} className="button button--ghost">
              Back to the design
            </Link>
            <button type="submit" className="button" disabled={navigation.state === 'submitting'}>
              Save and publish the card
            </button>
          </div>
        </Form>
        <aside className="designer__preview" aria-label="Preview">
          <h2>Preview</h2>
          <CardPreview card={design} collected={progressOf(schemeOf(design), 2).collected} />
          {/* The page a saved design leads to: without JavaScript, where the owner first hears of it. */}
          <ContrastWarning backgroundColor={design.backgroundColor} textColor={design.textColor} />
        </aside>
      </div>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Your card’s reward — Stampwise' }]
