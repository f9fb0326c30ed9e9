import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { type OnboardingHandle } from '#app/utils/card-design-steps.ts'
import { StepActions } from './__step-parts.tsx'
import { continueFromStep, requireStepCard } from './__step.server.ts'

export const handle: OnboardingHandle = { onboardingStep: 'easy_way' }

/** How holders install the card and how staff stamp it. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { card } = await requireStepCard(request)
  return { card: { id: card.id, title: card.title } }
}

export async function action({ request }: ActionFunctionArgs) {
  return continueFromStep(request, 'easy_way')
}

export default function EasyWayStep() {
  const { card } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>The easy way: no app, no sign-up</h1>
      <div className="onboarding-columns">
        <section>
          <h2>Your customers</h2>
          <ol className="onboarding-list">
            <li>Scan the QR code with the phone’s camera.</li>
            <li>Tap ‘Get my card’. The card opens in the browser with its own code.</li>
            <li>
              Add it to the home screen: on iPhone, Share → ‘Add to Home Screen’; on Android, the browser’s menu → ‘Add
              to Home screen’ or ‘Install app’. It then opens like an app, even offline.
            </li>
            <li>At the counter they show the card; when it is full they get the reward.</li>
          </ol>
        </section>
        <section>
          <h2>You and your staff</h2>
          <ol className="onboarding-list">
            <li>
              Open the <Link to={`/account/${card.id}/scan`}>stamp page</Link> on any phone signed in to your account.
            </li>
            <li>Scan the customer’s card with the camera, or type the 8-character code printed under its QR code.</li>
            <li>Give one stamp or several at once. A mistake can be undone within 2 minutes.</li>
            <li>When the card is full, redeem the reward: the card starts a new round.</li>
          </ol>
        </section>
      </div>
      <StepActions cardId={card.id} back="your_qr_code" continueLabel="Where to place the QR code" />
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'How it works — Stampwise' }]
