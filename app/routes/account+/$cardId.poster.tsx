import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { useEffect, useState } from 'react'
import { CardPreview } from '#app/components/card-preview.tsx'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { joinUrl, qrSvg } from '#app/services/cards/card-qr.server.ts'
import { goalHeadline, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'

export const handle: AccountHandle = { back: 'previous' }

/** The printable A4 poster for the counter ("place your QR"): the card, its QR code and how to join. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const url = joinUrl(card.slug)
  return { card, joinUrl: url, svg: await qrSvg(url) }
}

export default function Poster() {
  const { card, joinUrl, svg } = useLoaderData<typeof loader>()
  return (
    <>
      <div className="poster-tools">
        <p>
          Print this page on A4 (your browser’s Print, or Ctrl+P / ⌘P) and place it where customers pay.{' '}
          <Link to={`/account/${card.id}/qr_code`}>Back to the QR code</Link>
        </p>
        <PrintButton />
      </div>
      <article className="poster" aria-label="Poster">
        <p className="poster__business">{card.businessName}</p>
        <h1 className="poster__title">{goalHeadline(schemeOf(card))}</h1>
        {/* The owner's words after a label, as they typed them: "get A free coffee" read wrong, and lower-casing
            would spoil names ("Lavazza espresso"). The same form as the pass's 'Reward earned: {reward}'. */}
        {card.reward ? <p className="poster__reward">{`Your reward: ${card.reward}`}</p> : null}
        <div className="poster__body">
          <div
            className="poster__qr"
            role="img"
            aria-label={`QR code that opens ${joinUrl}`}
            dangerouslySetInnerHTML={{ __html: svg }}
          />
          <CardPreview card={card} />
        </div>
        <ol className="poster__steps">
          <li>Open your phone’s camera and point it at the code.</li>
          <li>Tap the link, then “Get my card”.</li>
          <li>Show your card at the counter to collect a stamp on every visit.</li>
        </ol>
        <p className="poster__note">No app and no sign-up needed. {joinUrl}</p>
      </article>
    </>
  )
}

/** window.print() needs JavaScript: without it the button is not drawn, and the text above says how to print. */
function PrintButton() {
  const [canPrint, setCanPrint] = useState(false)
  useEffect(() => setCanPrint(true), [])
  if (!canPrint) return null
  return (
    <button type="button" className="button" onClick={() => window.print()}>
      Print poster
    </button>
  )
}

export const meta: MetaFunction = () => [{ title: 'Poster — Stampwise' }]
