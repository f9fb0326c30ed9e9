import { Link } from '@remix-run/react'
import { PlanFeatures, type SharedPlanFeatures } from '#app/components/plan-features.tsx'
import { formatDollars, RECOMMENDED_TIER } from '#app/utils/plan-format.ts'
import type { PublicTariff } from '#app/types/tariffs.ts'

export type TrialTerms = { days: number; cardLimit: number; monthlyPushLimit: number; staffSeats: number }

const PLAN_AUDIENCE: Record<number, string> = {
  1: 'One shop, one card: everything you need to replace paper.',
  2: 'A few offers at once, or two or three branches.',
  3: 'Busy businesses and small chains that talk to customers often.',
}

export function PricingSection({
  tariffs,
  trial,
  shared,
  cardPayments,
}: {
  tariffs: PublicTariff[]
  trial: TrialTerms
  shared: SharedPlanFeatures
  /** Whether owners can pay by card here (Stripe is set up), beside the bank transfer. */
  cardPayments: boolean
}) {
  return (
    <section id="pricing" className="section section--tinted" aria-labelledby="pricing-title">
      <div className="container">
        <header className="section-header">
          <p className="eyebrow">Pricing</p>
          <h2 id="pricing-title">Simple plans, no surprises</h2>
          <p className="lead">
            Start with a free {trial.days}-day trial. Then pay monthly, or yearly and save. Every plan has unlimited
            card holders.
          </p>
        </header>
        <ul className="plans" role="list">
          <li className="plan">
            <h3 className="plan__name">Free trial</h3>
            <p className="plan__for">Try everything at your counter before you pay anything.</p>
            <p className="plan__price">
              <span className="plan__amount">$0</span> for {trial.days} days
            </p>
            <p className="plan__alt">No payment details needed</p>
            <LandingPlanFeatures plan={trial} shared={shared} />
            <Link to="/sign-up" className="button button--ghost button--block">
              Start free trial
            </Link>
          </li>
          {tariffs.map((tariff) => {
            const saving = tariff.monthlyPriceCents * 12 - tariff.yearlyPriceCents
            const recommended = tariff.tier === RECOMMENDED_TIER
            return (
              <li key={tariff.tier} className={recommended ? 'plan plan--recommended' : 'plan'}>
                <h3 className="plan__name">
                  {tariff.name}
                  {recommended ? <span className="plan__badge"> Recommended</span> : null}
                </h3>
                <p className="plan__for">{PLAN_AUDIENCE[tariff.tier]}</p>
                <p className="plan__price">
                  <span className="plan__amount">{formatDollars(tariff.monthlyPriceCents)}</span>/month
                </p>
                <p className="plan__alt">
                  or {formatDollars(tariff.yearlyPriceCents)}/year
                  {saving > 0 ? ` (save ${formatDollars(saving)})` : null}
                </p>
                <LandingPlanFeatures plan={tariff} shared={shared} />
                <Link to="/sign-up" className={`button button--block${recommended ? '' : ' button--ghost'}`}>
                  Try {tariff.name} free
                </Link>
              </li>
            )
          })}
        </ul>
        <p className="plans__note">
          Prices in US dollars, plus VAT where it applies.{' '}
          {cardPayments
            ? 'Pay by card, or by invoice and bank transfer.'
            : 'Paid plans are billed by invoice and bank transfer.'}{' '}
          A push message counts once however many customers receive it. Cancel any time: your plan runs until the end of
          the period you paid for.
        </p>
      </div>
    </section>
  )
}

/** The shared list, with what the landing page also shows on every plan: the counter's tools. */
function LandingPlanFeatures(props: React.ComponentProps<typeof PlanFeatures>) {
  return (
    <PlanFeatures {...props}>
      <li>QR poster, scanning and short codes</li>
    </PlanFeatures>
  )
}
