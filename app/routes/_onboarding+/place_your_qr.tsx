import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { type OnboardingHandle } from '#app/utils/card-design-steps.ts'
import { StepActions } from './__step-parts.tsx'
import { continueFromStep, requireStepCard } from './__step.server.ts'

export const handle: OnboardingHandle = { onboardingStep: 'place_your_qr' }

/** Where and how to place the printed poster. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { card } = await requireStepCard(request)
  return { card: { id: card.id } }
}

export async function action({ request }: ActionFunctionArgs) {
  return continueFromStep(request, 'place_your_qr')
}

export default function PlaceYourQrStep() {
  const { card } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>Place your QR code</h1>
      <p className="lead">
        Print the <Link to={`/account/${card.id}/qr_code`}>poster with your QR code</Link> (A4, ready to print) and put
        it where customers wait or pay.
      </p>
      <ul className="onboarding-list">
        <li>At the counter or next to the card reader, at eye level: the moment of paying is the moment to ask.</li>
        <li>On the door or the window, so passers-by see there is a reward.</li>
        <li>On tables, menus or the waiting area, where people have a minute with their phone.</li>
        <li>Keep it flat, well lit and at least 3 cm wide, away from glare; laminate it if it might get wet.</li>
        <li>Tell your staff to mention it: ‘Scan this for your stamp card — the tenth one is on us.’</li>
      </ul>
      <p>
        No business page on Facebook or Instagram? <Link to="/info-without-fb">Other ways to announce your card</Link>.
      </p>
      <StepActions cardId={card.id} back="easy_way" continueLabel="Finish" />
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Place your QR code — Stampwise' }]
