import { type SharedPlanFeatures } from '#app/types/tariffs.ts'
import { cardsText, pushesText, seatsText } from '#app/utils/plan-format.ts'

/** What one plan holds that differs between plans (a paid plan's tariffs row, or the trial's terms). */
export type PlanLimits = { cardLimit: number; monthlyPushLimit: number; staffSeats: number }

export type { SharedPlanFeatures }

/** The wallets holders can add a card to here, in words; null when neither is set up (then no plan has them). */
export function walletsText({ appleWallet, googleWallet }: SharedPlanFeatures): string | null {
  if (appleWallet && googleWallet) return 'Apple Wallet and Google Wallet passes'
  if (appleWallet) return 'Apple Wallet passes'
  if (googleWallet) return 'Google Wallet passes'
  return null
}

/**
 * The list of what a plan really holds, the same on the landing page's pricing and on /account/tariffs: the two
 * limits that are sold, the staff seats, then what every plan has (locations, automatic messages, wallets).
 */
export function PlanFeatures({
  plan,
  shared,
  children,
}: {
  plan: PlanLimits
  shared: SharedPlanFeatures
  children?: React.ReactNode
}) {
  const wallets = walletsText(shared)
  return (
    <ul className="plan__features">
      <li>{cardsText(plan.cardLimit)}</li>
      <li>{pushesText(plan.monthlyPushLimit)}</li>
      <li>{seatsText(plan.staffSeats)}</li>
      <li>Up to {shared.locationsMax} locations</li>
      <li>Automatic messages, not counted in the monthly ones</li>
      {wallets ? <li>{wallets}</li> : null}
      <li>Unlimited card holders</li>
      {children}
    </ul>
  )
}
