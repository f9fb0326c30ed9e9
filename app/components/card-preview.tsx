import { progressOf, progressWords, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { StampIconPath } from './stamp-icons.tsx'

export type CardDesign = {
  title: string
  businessName: string
  stampsRequired: number
  backgroundColor: string
  textColor: string
  stampIcon: string
  reward?: string
  logoUrl?: string | null
}

/**
 * A stamp card as holders see it: the business, the card's title, a grid of stamps (the collected ones filled with
 * the card's icon) and the reward. One component for every place a card is shown, so the design looks the same
 * in the account, the builder's preview, the holder's pass and the poster.
 */
export function CardPreview({
  card,
  collected = 0,
  size = 'normal',
}: {
  card: CardDesign
  collected?: number
  size?: 'small' | 'normal'
}) {
  const progress = progressOf(schemeOf(card), collected)
  const label = `${card.title || 'Untitled card'} by ${card.businessName || 'your business'}: ${progressWords(progress)}`
  return (
    <figure
      className={`card-preview card-preview--${size}`}
      style={{ backgroundColor: card.backgroundColor, color: card.textColor }}
      aria-label={label}
    >
      <figcaption className="card-preview__head">
        {card.logoUrl ? <img className="card-preview__logo" src={card.logoUrl} alt="" width={40} height={40} /> : null}
        <span>
          <span className="card-preview__business">{card.businessName || 'Your business'}</span>
          <span className="card-preview__title">{card.title || 'Untitled card'}</span>
        </span>
      </figcaption>
      <ol className="card-preview__stamps" aria-hidden="true">
        {Array.from({ length: progress.goal }, (_, index) => (
          <li key={index} className={index < progress.collected ? 'stamp stamp--collected' : 'stamp'}>
            <svg viewBox="0 0 24 24" width="20" height="20">
              <StampIconPath icon={card.stampIcon} />
            </svg>
          </li>
        ))}
      </ol>
      {card.reward ? <p className="card-preview__reward">Reward: {card.reward}</p> : null}
    </figure>
  )
}
