import { Link, useLoaderData } from '@remix-run/react'
import { CardPreview } from '#app/components/card-preview.tsx'
import type { qrCodeLoader } from './__qr-code-page.server.ts'

/**
 * The card's QR code page, at both addresses of the specification (/account/{cardId}/qr_code,
 * /account/qr_code/{cardId}).
 */

export function QrCodePage() {
  const { card, joinUrl, svg } = useLoaderData<typeof qrCodeLoader>()
  const base = `/account/${card.id}`
  return (
    <>
      <h1>QR code for {card.title || 'your card'}</h1>
      {card.status !== 'active' ? (
        <p className="notice-panel" role="status">
          This card is {card.status === 'draft' ? 'not finished yet' : 'archived'}: the QR code opens a page saying so
          until the card is active.
        </p>
      ) : null}
      <div className="qr-layout">
        {/* The SVG comes from the qrcode library for our own address: no user input reaches it. */}
        <div
          className="qr-code"
          role="img"
          aria-label={`QR code that opens ${joinUrl}`}
          dangerouslySetInnerHTML={{ __html: svg }}
        />
        <div>
          <p>Customers scan this code with their phone camera to get your card. It opens:</p>
          <p>
            <a href={joinUrl}>{joinUrl}</a>
          </p>
          <ul className="actions" role="list">
            <li>
              <a className="button" href={`${base}/qr_code.svg`} download={`${card.slug}-qr.svg`}>
                Download SVG
              </a>
            </li>
            <li>
              <a className="button button--ghost" href={`${base}/qr_code.png`} download={`${card.slug}-qr.png`}>
                Download PNG
              </a>
            </li>
            <li>
              <Link className="button button--ghost" to={`${base}/poster`}>
                Printable poster (A4)
              </Link>
            </li>
          </ul>
          <p className="field-hint">SVG stays sharp at any size (best for print shops); PNG is 1024 × 1024 pixels.</p>
        </div>
      </div>
      <h2>How it looks to your customers</h2>
      <CardPreview card={card} />
    </>
  )
}
