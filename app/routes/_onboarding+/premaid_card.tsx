import { redirect, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { CardPreview } from '#app/components/card-preview.tsx'
import { landingPath } from '#app/services/auth/guest.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { cardDesignView } from '#app/services/cards/card-design.server.ts'
import { stepPath } from '#app/utils/card-design-steps.ts'
import { findPremadeOwnerCard } from '#models/card-onboarding.server.ts'

/**
 * A pre-made owner's first stop after choosing a password: the card an admin prepared for them
 * (app/services/accounts/premade-account.server.ts). An owner without such a card (one who designed their own) has
 * nothing
 * to see here: they go where they start, /account (or /main before their first card).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await findPremadeOwnerCard(userId)
  if (!card) throw redirect(await landingPath(userId))
  return { card: { id: card.id, title: card.title }, design: await cardDesignView(userId, card) }
}

export default function PremadeCard() {
  const { card, design } = useLoaderData<typeof loader>()
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
