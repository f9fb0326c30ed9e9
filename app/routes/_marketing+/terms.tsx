import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { company } from '#app/utils/company.ts'
import { getEnv } from '#app/server/env.server.ts'
import { LegalPage, type LegalSection } from './__legal-page.tsx'

const UPDATED = { iso: '2026-11-01', label: '1 November 2026' }

function termsSections(supportEmail: string): LegalSection[] {
  const mail = <a href={`mailto:${supportEmail}`}>{supportEmail}</a>
  return [
    {
      id: 'service',
      title: 'The service',
      body: (
        <p>
          {company.product} lets you design digital loyalty cards, give them to your customers (“card holders”)
          through a QR code, stamp them, let holders claim the rewards you set, and send push messages to holders who
          allow them. We improve the service over time and may change how features work, but we will not materially
          reduce the main features of a paid plan during a period you have already paid for.
        </p>
      ),
    },
    {
      id: 'account',
      title: 'Your account',
      body: (
        <ul>
          <li>Give us accurate details and keep your e-mail address up to date: we send invoices and notices there.</li>
          <li>Keep your password secret. You are responsible for what happens under your account, including what your staff do when they stamp cards.</li>
          <li>Tell us straight away at {mail} if you think someone else has used your account.</li>
        </ul>
      ),
    },
    {
      id: 'trial',
      title: 'Free trial',
      body: (
        <p>
          A new account starts with a free trial of 14 days, with up to 3 active cards and 10 push messages a month.
          We do not ask for payment details and nothing is charged when the trial ends. After the trial your cards keep
          working for card holders, but creating cards and sending messages stop until you choose a paid plan. Each
          business may use one free trial.
        </p>
      ),
    },
    {
      id: 'payment',
      title: 'Plans, prices and payment',
      body: (
        <>
          <p>
            The plans, their limits and their prices are those shown on our <a href="/#pricing">pricing page</a> when
            you choose a plan. You can pay monthly or yearly (12 months). Prices are in US dollars and exclude VAT,
            which we add where it applies.
          </p>
          <p>
            When you choose a plan, and at the end of each period, we issue an invoice. You pay it by bank transfer
            within the time shown on the invoice. A plan becomes active when we have received the payment.
          </p>
          <p>
            We may change our prices by telling you by e-mail at least 30 days in advance. A new price applies from
            your next period, never to one you have already paid for.
          </p>
        </>
      ),
    },
    {
      id: 'renewal',
      title: 'Renewal and late payment',
      body: (
        <p>
          A plan renews for the same length of period until you cancel it. If a renewal invoice is not paid when the
          period ends, your plan continues for 7 days of grace; after that it ends. Your cards keep working for card
          holders, but creating cards and sending messages stop until the invoice is paid.
        </p>
      ),
    },
    {
      id: 'cancellation',
      title: 'Cancellation and refunds',
      body: (
        <p>
          You can cancel at any time in your account. Your plan stays active until the end of the period you have
          paid for, and then ends without further charge. We do not refund part-used periods, unless the law requires
          it or we end the service for reasons other than your breach of these terms, in which case we refund the
          unused part of any fees paid in advance.
        </p>
      ),
    },
    {
      id: 'limits',
      title: 'Limits',
      body: (
        <p>
          Each plan sets a number of active cards and of push messages a month. A message counts once however many
          card holders receive it. Monthly allowances start again on the first day of each calendar month (UTC) and
          unused messages do not carry over. Extra messages that we grant you do not expire. Archived cards do not
          count towards the card limit.
        </p>
      ),
    },
    {
      id: 'acceptable-use',
      title: 'Acceptable use',
      body: (
        <>
          <p>You are responsible for your cards and messages. You must not use {company.product} to:</p>
          <ul>
            <li>send messages that are unlawful, misleading, abusive or unrelated to your business;</li>
            <li>promote illegal products or services, or impersonate another business;</li>
            <li>try to collect personal data from card holders beyond what the service is designed to hold;</li>
            <li>probe, overload or get around the security or limits of the service;</li>
            <li>resell or give access to the service to others, apart from your own staff.</li>
          </ul>
        </>
      ),
    },
    {
      id: 'rewards',
      title: 'Your loyalty scheme',
      body: (
        <p>
          Your loyalty scheme is an arrangement between you and your customers. You decide the rewards and their
          conditions and you are responsible for honouring them. If you stop using {company.product}, tell your card
          holders how any rewards they have earned will be honoured.
        </p>
      ),
    },
    {
      id: 'data-protection',
      title: 'Data protection',
      body: (
        <>
          <p>
            Our <Link to="/privacy-policy">privacy policy</Link> explains what personal data we hold and why. For the
            data of your card holders (their cards, stamps and notification subscriptions) you are the controller and
            we are your processor. We then:
          </p>
          <ul>
            <li>process it only to provide the service, on your instructions as set out in these terms;</li>
            <li>keep it confidential, secure it appropriately and limit access to staff who need it;</li>
            <li>use only the sub-processors named in our privacy policy, and tell you before adding new ones;</li>
            <li>help you answer requests from card holders and tell you without undue delay of a personal data breach;</li>
            <li>delete it when you delete the card or close your account.</li>
          </ul>
        </>
      ),
    },
    {
      id: 'content',
      title: 'Your content and our software',
      body: (
        <p>
          Your business name, logo, texts and designs stay yours. You allow us to store and show them as needed to run
          the service. The software and the {company.product} brand are ours; while your account is open you may use
          the service for your business under these terms.
        </p>
      ),
    },
    {
      id: 'availability',
      title: 'Availability and support',
      body: (
        <p>
          We work to keep {company.product} available at all times but cannot promise it will never be interrupted.
          We announce planned maintenance in advance where we can. Support is by e-mail at {mail} and through our{' '}
          <Link to="/contacts">contact form</Link>, on UK working days.
        </p>
      ),
    },
    {
      id: 'liability',
      title: 'Liability',
      body: (
        <p>
          Nothing in these terms limits liability for death or personal injury caused by negligence, for fraud, or for
          anything else that the law does not allow to be limited. Otherwise, neither of us is liable for loss of
          profit, revenue, goodwill or data, or for indirect losses, and our total liability to you in any 12 months
          is limited to the fees you paid us in those 12 months.
        </p>
      ),
    },
    {
      id: 'termination',
      title: 'Suspension and closing your account',
      body: (
        <p>
          We may suspend sending messages, or your account, if you seriously break these terms (for example by sending
          spam) or do not pay, and we will tell you why. You can close your account at any time. When an account is
          closed we delete it, its cards and their card holders’ data within 30 days, except records such as invoices
          that the law requires us to keep.
        </p>
      ),
    },
    {
      id: 'changes',
      title: 'Changes to these terms',
      body: (
        <p>
          We will tell you by e-mail at least 30 days before an important change takes effect. If you do not accept
          it, you can cancel before then; the current terms apply until the end of your paid period.
        </p>
      ),
    },
    {
      id: 'law',
      title: 'Law and contact',
      body: (
        <p>
          These terms are governed by the law of England and Wales, and its courts have exclusive jurisdiction.
          {' '}{company.registration}. Questions about these terms: {mail}.
        </p>
      ),
    },
  ]
}

export async function loader() {
  return { supportEmail: getEnv().SUPPORT_EMAIL }
}

export default function Terms() {
  const { supportEmail } = useLoaderData<typeof loader>()
  return (
    <LegalPage
      title="Terms of service"
      updated={UPDATED}
      intro={
        <p className="lead">
          These terms are the agreement between {company.legalName} (“we”, “us”) and the business that opens a{' '}
          {company.product} account (“you”). {company.product} is a service for businesses: by opening an account you
          confirm that you act for a business, not as a consumer.
        </p>
      }
      sections={termsSections(supportEmail)}
    />
  )
}

export const meta: MetaFunction = () => [
  { title: 'Terms of service — Stampwise' },
  { name: 'description', content: 'The terms for using Stampwise: trial, plans, payment by invoice, cancellation.' },
]
