import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { cardJoinUrl, cardQrSvg } from '#app/services/cards/card-design.server.ts'
import { type OnboardingHandle } from '#app/utils/card-design-steps.ts'
import { StepActions } from './__step-parts.tsx'
import { continueFromStep, requireStepCard } from './__step.server.ts'

export const handle: OnboardingHandle = { onboardingStep: 'your_qr_code' }

/** The card's QR code: the join address APP_URL/c/{slug}, drawn on the server. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { card } = await requireStepCard(request)
  return {
    card: { id: card.id, title: card.title },
    joinUrl: cardJoinUrl(card.slug),
    qrSvg: await cardQrSvg(card.slug),
  }
}

export async function action({ request }: ActionFunctionArgs) {
  return continueFromStep(request, 'your_qr_code')
}

export default function QrCodeStep() {
  const { card, joinUrl, qrSvg } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>Your QR code</h1>
      <p className="lead">Customers scan this code to get {card.title}. It always leads to your card.</p>
      <figure className="onboarding-qr">
        {/* The SVG is drawn by the qrcode package from our own address: no outside markup. */}
        <div
          className="onboarding-qr__code"
          role="img"
          aria-label={`QR code for ${joinUrl}`}
          dangerouslySetInnerHTML={{ __html: qrSvg }}
        />
        <figcaption>
          <a href={joinUrl}>{joinUrl}</a>
        </figcaption>
      </figure>
      <p>
        <Link to={`/account/${card.id}/qr_code`} className="button button--ghost">
          Download the QR code (SVG, PNG) and the poster
        </Link>
      </p>
      <StepActions cardId={card.id} back="card_ready" continueLabel="How customers use it" />
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Your QR code — Stampwise' }]
