import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { PricingSection, type TrialTerms } from '#app/components/pricing-section.tsx'
import { getEnv } from '#app/server/env.server.ts'
import { isStripeOn } from '#app/server/stripe.server.ts'
import { sharedPlanFeatures } from '#app/services/billing/plan-features.server.ts'
import { TRIAL_DAYS, TRIAL_LIMITS } from '#app/utils/plan-status.ts'
import { TRIAL_STAFF_SEATS } from '#app/utils/staff.ts'
import { listTariffs } from '#models/tariff.server.ts'
import { helpCenterTopics } from './__help-center.server.ts'
import { HelpCenter } from './__help-center.tsx'
import { StampCardIllustration } from './__stamp-card-illustration.tsx'

// docs/product/plans-and-limits.md. The paid plans' limits come from the tariffs table; the trial has no row.

const STEPS = [
  {
    title: 'Design your card',
    text: 'Add your name, logo and colours, pick a stamp icon and set how many stamps earn the reward. The preview shows what customers will see.',
  },
  {
    title: 'Print the QR for your counter',
    text: 'Download a ready-made poster, or the QR code as PNG or SVG for menus, flyers and window stickers.',
  },
  {
    title: 'Customers add it to their phone',
    text: 'They scan, tap “Get my card” and save it to the home screen. No app to install, no account, nothing personal asked.',
  },
  {
    title: 'Stamp in a second',
    text: 'Scan the QR code on the customer’s card, or type the short code printed under it. It works without a camera too.',
  },
  {
    title: 'Bring them back',
    text: 'Send a push message to everyone holding your card: a reward reminder, a new dish, this week’s opening hours.',
  },
] as const

const REASONS = [
  {
    title: 'Nothing to install',
    text: 'Customers join in seconds from a QR code. No app store, no sign-up form, no password to forget.',
  },
  {
    title: 'Works on the phone you have',
    text: 'Old phones, slow connections, even browsers with scripts turned off: cards and stamping still work.',
  },
  {
    title: 'Fair to your customers',
    text: 'We never ask for their names or contacts, never sell data and never show ads.',
  },
] as const

export async function loader() {
  const trial: TrialTerms = { days: TRIAL_DAYS, ...TRIAL_LIMITS, staffSeats: TRIAL_STAFF_SEATS }
  const tariffs = await listTariffs()
  return {
    tariffs,
    trial,
    shared: sharedPlanFeatures(),
    cardPayments: isStripeOn(),
    help: helpCenterTopics({ tariffs, trial, supportEmail: getEnv().SUPPORT_EMAIL }),
  }
}

export default function Landing() {
  const { tariffs, trial, shared, cardPayments, help } = useLoaderData<typeof loader>()
  return (
    <main>
      <section className="hero">
        <div className="container hero__grid">
          <div className="hero__text">
            <p className="eyebrow">Digital loyalty cards for small businesses</p>
            <h1>Turn first-time customers into regulars</h1>
            <p className="lead">
              Stampwise puts your stamp card on your customers’ phones. They scan a QR code at your counter: no app, no
              account. You stamp in a second, and send a message when it’s time to come back.
            </p>
            <div className="actions">
              <Link to="/sign-up" className="button">
                Start your free trial
              </Link>
              <Link to="/login" className="button button--ghost">
                Log in
              </Link>
            </div>
            <p className="hero__note">
              Free for {trial.days} days with {trial.cardLimit} cards. No payment details needed.
            </p>
          </div>
          <StampCardIllustration />
        </div>
      </section>

      <section id="product" className="section" aria-labelledby="product-title">
        <div className="container">
          <header className="section-header">
            <p className="eyebrow">Product</p>
            <h2 id="product-title">From paper card to phone in an afternoon</h2>
            <p className="lead">
              Everything a stamp card does, without the paper, the forged stamps or the lost cards.
            </p>
          </header>
          <ol className="steps" role="list">
            {STEPS.map((step, index) => (
              <li key={step.title} className="step">
                <span className="step__number" aria-hidden="true">
                  {index + 1}
                </span>
                <h3>{step.title}</h3>
                <p>{step.text}</p>
              </li>
            ))}
          </ol>
          <ul className="reasons" role="list">
            {REASONS.map((reason) => (
              <li key={reason.title}>
                <h3>{reason.title}</h3>
                <p>{reason.text}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <PricingSection tariffs={tariffs} trial={trial} shared={shared} cardPayments={cardPayments} />
      <HelpCenter topics={help} />

      <section className="cta-band" aria-labelledby="cta-title">
        <div className="container">
          <h2 id="cta-title">Ready to put your card on the counter?</h2>
          <p>Design your card and print its QR code today. It’s free for {trial.days} days.</p>
          <div className="actions">
            <Link to="/sign-up" className="button button--light">
              Start your free trial
            </Link>
            <Link to="/login" className="button button--ghost-light">
              Log in
            </Link>
          </div>
        </div>
      </section>
    </main>
  )
}

export const meta: MetaFunction = () => [
  { title: 'Digital stamp cards, pricing and help — Stampwise' },
  {
    name: 'description',
    content:
      'Loyalty stamp cards your customers keep on their phone: no app, no account. Stamp by QR or short code and send push messages that bring them back.',
  },
]
