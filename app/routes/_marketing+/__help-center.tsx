import { Link } from '@remix-run/react'
import { type ReactNode } from 'react'
import type { PublicTariff } from '#models/tariff.server.ts'
import { pushesText, type TrialTerms } from '#app/components/pricing-section.tsx'

type Question = { question: string; answer: ReactNode }

function questions({ tariffs, trial, supportEmail }: HelpCenterProps): Array<{ topic: string; items: Question[] }> {
  const planPushes = tariffs.map((tariff) => `${tariff.name} ${pushesText(tariff.monthlyPushLimit)}`).join(', ')
  return [
    {
      topic: 'Your customers',
      items: [
        {
          question: 'How do my customers get the card on their phone?',
          answer: (
            <>
              <p>
                They point the phone's camera at the QR poster on your counter and tap the link. Your card opens in
                the browser; they tap “Get my card” and it is theirs, already showing the stamps they have.
              </p>
              <p>
                To keep it one tap away, they add it to the home screen: on an iPhone, Share → “Add to Home Screen”; on
                Android, the browser menu → “Install app” or “Add to home screen”. The card then opens like an app.
              </p>
            </>
          ),
        },
        {
          question: 'Do customers need to install an app or create an account?',
          answer: (
            <p>
              No. There is nothing to download from an app store and nothing to sign up for: no name, no e-mail, no
              phone number, no password. The card is a private web address saved on their phone. It works in any
              modern browser, on old phones and slow connections too.
            </p>
          ),
        },
        {
          question: 'What if a customer changes phone or clears the browser?',
          answer: (
            <p>
              The card lives at its own private link. If they saved it to the home screen or bookmarked it, they can
              open the same link on the new phone. Because we never ask for personal details, we cannot look a card up
              by name; if the link is lost, give them a new card and add the stamps they had.
            </p>
          ),
        },
      ],
    },
    {
      topic: 'Stamps, rewards and messages',
      items: [
        {
          question: 'How does stamping work?',
          answer: (
            <p>
              Open the card's Scan page in your account. Point your phone's camera at the QR code on the customer's
              card, or type the 8-character code printed under it: that works on any device, even without a camera.
              Add several stamps at once for a big order. When the card is full it shows the reward; once you redeem
              it, a new round starts.
            </p>
          ),
        },
        {
          question: 'How do push messages work, and how many can I send?',
          answer: (
            <>
              <p>
                Customers who tap “Turn on notifications” on their card receive your messages on their lock screen.
                You write a title and a short message, or start from a template, and see a preview and the number of
                customers who will get it before you send.
              </p>
              <p>
                Each message counts once towards your monthly allowance, however many customers receive it:{' '}
                {planPushes}, and {trial.monthlyPushLimit} during the trial. Allowances renew on the first day of each
                calendar month.
              </p>
            </>
          ),
        },
      ],
    },
    {
      topic: 'Plans and billing',
      items: [
        {
          question: 'What happens when my free trial ends?',
          answer: (
            <p>
              The trial lasts {trial.days} days and nothing is charged automatically: we never ask for card details.
              When it ends, your cards keep working for your customers (they keep their stamps and can still claim
              rewards), but creating cards and sending messages pause until you choose a plan.
            </p>
          ),
        },
        {
          question: 'How do I pay?',
          answer: (
            <p>
              Choose a plan in your account, monthly or yearly, and we issue an invoice that you pay by bank transfer.
              Your plan is active as soon as the payment is confirmed. When a period ends, the renewal invoice follows,
              and you keep full access for 7 days while it is paid.
            </p>
          ),
        },
        {
          question: 'Can I cancel or change my plan?',
          answer: (
            <p>
              Yes, any time, from your account. After cancelling, your plan runs until the end of the period you paid
              for, and there is nothing more to pay. If you move to a plan with fewer cards, existing cards keep
              working for your customers; you choose which to archive before you create new ones.
            </p>
          ),
        },
      ],
    },
    {
      topic: 'Privacy and support',
      items: [
        {
          question: 'What data do you keep about my customers?',
          answer: (
            <p>
              Almost none. For each card we store a random card id, the stamps and rewards, and, if the customer turns
              on notifications, the delivery address their browser gives us for them. No names, e-mail addresses,
              phone numbers or locations. Our <Link to="/privacy-policy">privacy policy</Link> has the details.
            </p>
          ),
        },
        {
          question: 'How do I contact you?',
          answer: (
            <p>
              Write to <a href={`mailto:${supportEmail}`}>{supportEmail}</a> or use the{' '}
              <Link to="/contacts">contact form</Link>. We reply within one working day, Monday to Friday. Ideas and
              complaints are welcome on the <Link to="/feedback">feedback page</Link>.
            </p>
          ),
        },
      ],
    },
  ]
}

type HelpCenterProps = { tariffs: PublicTariff[]; trial: TrialTerms; supportEmail: string }

export function HelpCenter(props: HelpCenterProps) {
  return (
    <section id="help" className="section" aria-labelledby="help-title">
      <div className="container">
        <header className="section-header">
          <p className="eyebrow">Help center</p>
          <h2 id="help-title">Questions owners ask us</h2>
          <p className="lead">
            Short answers to what we hear most. Still stuck? <Link to="/contacts">Contact support</Link>.
          </p>
        </header>
        <div className="faq">
          {questions(props).map((group) => (
            <div key={group.topic} className="faq__group">
              <h3>{group.topic}</h3>
              {group.items.map((item) => (
                <details key={item.question} className="faq__item">
                  <summary>{item.question}</summary>
                  <div className="faq__answer">{item.answer}</div>
                </details>
              ))}
            </div>
          ))}
        </div>
      </div>
    </section>
  )
}
