import { Link } from '@remix-run/react'
import { type ReactNode } from 'react'
import { TableScroll } from '#app/components/table-scroll.tsx'
import { type TrialTerms } from '#app/components/pricing-section.tsx'
import { cardsText, formatDollars, pushesText } from '#app/utils/plan-format.ts'
import { type PublicTariff } from '#models/tariff.server.ts'

export type HelpTopic = { topic: string; items: Array<{ question: string; answer: ReactNode }> }

const CONTACT = <Link to="/account/contact-us">Feedback form</Link>

/** The owners' FAQ; plan numbers come from the tariffs table and the trial terms, never typed twice. */
export function helpTopics({ tariffs, trial }: { tariffs: PublicTariff[]; trial: TrialTerms }): HelpTopic[] {
  return [
    {
      topic: 'Trial and plans',
      items: [
        {
          question: 'How long is the free trial, and what does it include?',
          answer: (
            <p>
              {trial.days} days, free, with no payment details asked. During the trial you can have{' '}
              {cardsText(trial.cardLimit)} and send {pushesText(trial.monthlyPushLimit)}.
            </p>
          ),
        },
        {
          question: 'What do the plans cost?',
          answer: (
            <>
              <TableScroll label="Plans and prices">
                <table className="help-plans">
                  <thead>
                    <tr>
                      <th scope="col">Plan</th>
                      <th scope="col">Monthly</th>
                      <th scope="col">Yearly</th>
                      <th scope="col">Active cards</th>
                      <th scope="col">Push messages a month</th>
                    </tr>
                  </thead>
                  <tbody>
                    {tariffs.map((tariff) => (
                      <tr key={tariff.tier}>
                        <th scope="row">{tariff.name}</th>
                        <td>{formatDollars(tariff.monthlyPriceCents)}</td>
                        <td>{formatDollars(tariff.yearlyPriceCents)}</td>
                        <td>{tariff.cardLimit}</td>
                        <td>{tariff.monthlyPushLimit}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
              <p>
                Every plan has unlimited card holders. Compare them on <Link to="/account/tariffs">Pricing</Link>.
              </p>
            </>
          ),
        },
        {
          question: 'How do I pay?',
          answer: (
            <p>
              Choose a plan, monthly or yearly, and we issue an invoice with our bank details; you pay it by bank
              transfer. Your plan becomes active as soon as we confirm the payment, and the bell tells you. When a
              period ends the renewal invoice follows, and you keep full access for 7 days while it is paid.
            </p>
          ),
        },
        {
          question: 'What is additional quota?',
          answer: (
            <p>
              Extra push messages we can add to your account, for a campaign say. They are used once the month's
              messages are spent, or after your plan has ended, and they never expire. Ask for them through the{' '}
              {CONTACT}.
            </p>
          ),
        },
        {
          question: 'What happens when my trial or plan ends, or I cancel?',
          answer: (
            <p>
              After cancelling, your plan runs until the end of the period you paid for. Once a trial or plan has
              ended, your cards keep working for your customers (stamps and rewards included), but creating cards and
              sending push messages stop until you choose a plan, unless additional quota remains.
            </p>
          ),
        },
      ],
    },
    {
      topic: 'Cards and QR codes',
      items: [
        {
          question: 'How do I create a card?',
          answer: (
            <p>
              Use <Link to="/main">Create a card</Link>: the business name, colours, stamp icon, the number of stamps
              for the reward (1 to 20), the reward and its terms. The preview shows the card exactly as your customers
              will see it.
            </p>
          ),
        },
        {
          question: 'Where do I find my card’s QR code?',
          answer: (
            <p>
              On the card’s QR code page in your account. Download it as SVG or PNG, or print the ready-made poster
              and place it at your counter. The code opens your card’s join page; it never changes, so a printed
              poster stays valid.
            </p>
          ),
        },
      ],
    },
    {
      topic: 'Stamping',
      items: [
        {
          question: 'How do I stamp a customer’s card?',
          answer: (
            <p>
              Open the card’s Scan page. Point the camera at the QR code on the customer’s card, or type the
              8-character code printed under it (that works on any phone, even without a camera). You can add several
              stamps at once. A code from another business’s card is refused.
            </p>
          ),
        },
        {
          question: 'What happens when a card is full?',
          answer: (
            <p>
              The customer’s card shows the reward. Once you redeem it, a new round of stamps starts on the same card.
            </p>
          ),
        },
      ],
    },
    {
      topic: 'Your customers',
      items: [
        {
          question: 'How do customers get the card on their phone?',
          answer: (
            <>
              <p>
                They scan your QR code, tap “Get my card”, and the card is theirs: no app, no account, no personal
                details. To keep it one tap away they add it to the home screen: on an iPhone, Share → “Add to Home
                Screen”; on Android, the browser menu → “Install app”.
              </p>
              <p>
                On an iPhone, notifications only work once the card has been added to the home screen and opened from
                there.
              </p>
            </>
          ),
        },
      ],
    },
    {
      topic: 'Push notifications',
      items: [
        {
          question: 'How do push messages work?',
          answer: (
            <p>
              Customers who tap “Turn on notifications” on their card receive your messages. Write a title (up to 50
              characters) and a message (up to 180), add a link if you like, or start from a template. Before sending
              you see a preview, how many customers will receive it and how many messages you have left. Each
              message counts once, however many customers receive it; the monthly allowance renews on the first day
              of each calendar month (UTC).
            </p>
          ),
        },
        {
          question: 'Where can I see what was delivered?',
          answer: (
            <p>
              The card’s Notifications history lists every message with how many were delivered, failed or are still
              on their way.
            </p>
          ),
        },
      ],
    },
    {
      topic: 'Account and data',
      items: [
        {
          question: 'How do I delete a card or my account?',
          answer: (
            <p>
              Archiving a card is the gentler option. Deleting it removes everything attached to it: your customers’
              cards, their stamps and their notification subscriptions. Deleting asks you to type a confirmation
              first and cannot be undone. To delete your whole account, go to{' '}
              <Link to="/account/profile">Profile settings</Link>, or write to us through the {CONTACT} and we will do
              it for you.
            </p>
          ),
        },
        {
          question: 'What do you keep about my customers?',
          answer: (
            <p>
              Almost nothing: a random card id, the stamps and rewards, and, if they turn notifications on, the
              delivery address their browser gives us. No names, e-mail addresses or phone numbers. See our{' '}
              <Link to="/privacy-policy">privacy policy</Link>.
            </p>
          ),
        },
      ],
    },
  ]
}
