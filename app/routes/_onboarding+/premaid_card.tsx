import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { CardPreview } from '#app/components/card-preview.tsx'
import { stepPath } from '#app/utils/card-design-steps.ts'
import { cardDesignView } from '#app/utils/card-design.server.ts'
import { requireUserId } from '#app/utils/session.server.ts'
import { findNewestOwnerCard } from '#models/card-onboarding.server.ts'

/**
 * A pre-made owner's first stop after choosing a password: the card an admin prepared for them
 * (app/utils/premade-account.server.ts). On that first sign-in it is the account's only card, so the newest card
 * is that one (later, the owner's newest card).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await findNewestOwnerCard(userId)
  if (!card) return { card: null, design: null }
  return { card: { id: card.id, title: card.title }, design: await cardDesignView(userId, card) }
}

export default function PremadeCard() {
  const { card, design } = useLoaderData<typeof loader>()
  if (!card || !design) {
    return (
      <>
        <h1>Your card is on its way</h1>
        <p className="lead">We have not prepared a card for you yet. You can design one yourself in a few minutes.</p>
        <Link to="/main" className="button">
          Design my card
        </Link>
      </>
    )
  }
  return (
    <>
      <h1>We made your card for you</h1>
      <p className="lead">Here is {card.title}, ready for your customers. Next, get its QR code and put it up.</p>
      <CardPreview card={design} />
      <div className="onboarding-actions">
        <Link to={stepPath('your_qr_code', card.id)} className="button">
          Get my QR code
        </Link>
        <Link to={stepPath('main', card.id)} className="button button--ghost">
          Change the design
        </Link>
      </div>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Your card — Stampwise' }]
