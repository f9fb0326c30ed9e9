import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { company } from '#app/utils/company.ts'
import { getEnv } from '#app/server/env.server.ts'
import { LegalPage, type LegalSection } from './__legal-page.tsx'

const UPDATED = { iso: '2026-11-01', label: '1 November 2026' }

function privacySections(supportEmail: string): LegalSection[] {
  const mail = <a href={`mailto:${supportEmail}`}>{supportEmail}</a>
  return [
    {
      id: 'who-we-are',
      title: 'Who we are',
      body: (
        <p>
          {company.registration}. We are the controller of the personal data of business owners who use{' '}
          {company.product} and of people who contact us. For the cards that a business gives its customers, that
          business is the controller and we process the data on its behalf.
        </p>
      ),
    },
    {
      id: 'owners',
      title: 'Business owners',
      body: (
        <>
          <p>When you use an account, we hold:</p>
          <ul>
            <li>your e-mail address and your password, stored only as a salted hash we cannot reverse; if you sign in with Google or Apple, the account identifier they give us;</li>
            <li>what you create: card designs, logos, rewards, terms and the text of your push messages;</li>
            <li>your plan, invoices, payments and the history of your plan’s status;</li>
            <li>security records: your sessions with the browser and IP address they came from, and counters that limit repeated sign-in attempts.</li>
          </ul>
          <p>
            We use this to provide the service under our contract with you, to keep it secure and improve it (our
            legitimate interests), and to keep accounting records (a legal obligation).
          </p>
        </>
      ),
    },
    {
      id: 'card-holders',
      title: 'Card holders',
      body: (
        <>
          <p>People who hold a business’s card give us no personal details: no name, e-mail, phone number or location. For each card we store:</p>
          <ul>
            <li>a random card id and a short code, which is how the business stamps it;</li>
            <li>the number of stamps, the rewards claimed and when the card was last stamped;</li>
            <li>
              only if the holder turns on notifications: the push subscription their browser creates (an address at
              their browser’s push service and the keys that encrypt messages to it).
            </li>
          </ul>
          <p>
            We do not follow card holders across businesses or websites. A holder can turn notifications off at any
            time in their browser, which ends the subscription; to have a card deleted, send us its link.
          </p>
        </>
      ),
    },
    {
      id: 'contact-forms',
      title: 'When you contact us',
      body: (
        <p>
          Our contact form asks for your name, e-mail, a subject and your message; the feedback form for your message,
          an optional rating and, only if you want a reply, your e-mail. We use them to answer you and to improve{' '}
          {company.product}.
        </p>
      ),
    },
    {
      id: 'cookies',
      title: 'Cookies',
      body: (
        <>
          <p>
            We use only cookies that the service cannot work without, so they need no consent. None can be read by
            scripts on the page, and none is used for analytics, advertising or tracking:
          </p>
          <ul>
            <li>a session cookie that keeps you signed in, for up to 30 days or until you sign out;</li>
            <li>a message cookie that carries a confirmation (such as “Email has been sent successfully”) to the next page, for at most a minute;</li>
            <li>a sign-in cookie that protects a sign-in with Google or Apple, for at most 10 minutes.</li>
          </ul>
          <p>
            Card holders get no cookie at all. Their card stores a copy of itself in the browser so that it opens
            quickly.
          </p>
        </>
      ),
    },
    {
      id: 'processors',
      title: 'Who processes data for us',
      body: (
        <>
          <p>We never sell personal data or share it for advertising. We use these processors, each under a contract that protects the data:</p>
          <ul>
            <li>our hosting provider, which runs our servers and database;</li>
            <li>our e-mail delivery provider, which sends account e-mails and invoices;</li>
            <li>
              our error-monitoring service, which receives reports when something fails, with technical details of the
              page and browser and, for a small share of visits, a replay of the page with its text and form fields
              masked;
            </li>
            <li>
              the push services of card holders’ browsers (Google, Apple, Mozilla, Microsoft), which deliver
              messages; messages are encrypted so that these services cannot read them;
            </li>
            <li>Google or Apple, only if you choose to sign in with them.</li>
          </ul>
          <p>
            We also share data with our bank and professional advisers where needed, and with authorities when the law
            requires it. Where a processor handles data outside the UK, we rely on UK adequacy regulations or the UK
            International Data Transfer Agreement.
          </p>
        </>
      ),
    },
    {
      id: 'retention',
      title: 'How long we keep data',
      body: (
        <ul>
          <li>Account data: while your account is open, then deleted within 30 days of closing it.</li>
          <li>Cards and card holders’ data: until the business deletes the card or closes its account. Push subscriptions are removed as soon as the push service reports them ended.</li>
          <li>Invoices and payment records: six years after the end of the financial year they belong to, as UK law requires.</li>
          <li>Contact and feedback messages: two years.</li>
          <li>Server logs: 30 days. Sessions: until you sign out, and at most 30 days.</li>
        </ul>
      ),
    },
    {
      id: 'security',
      title: 'Security',
      body: (
        <p>
          Connections are encrypted, passwords are hashed, card addresses cannot be guessed, and each business can see
          only its own cards and holders. Access to production data is limited to the staff who need it to run the
          service.
        </p>
      ),
    },
    {
      id: 'rights',
      title: 'Your rights',
      body: (
        <p>
          Under UK data protection law you can ask for a copy of your data, and ask us to correct, delete or transfer
          it, or to restrict or stop using it. Write to {mail}; we answer within one month. If you are unhappy with
          how we handle your data, you can complain to the Information Commissioner’s Office at{' '}
          <a href="https://ico.org.uk" rel="noopener noreferrer">ico.org.uk</a> or on 0303 123 1113.
        </p>
      ),
    },
    {
      id: 'changes',
      title: 'Changes and contact',
      body: (
        <p>
          We publish every change to this policy on this page, and e-mail account holders before important ones.
          Questions about privacy: {mail}, or our <Link to="/contacts">contact form</Link>.
        </p>
      ),
    },
  ]
}

export async function loader() {
  return { supportEmail: getEnv().SUPPORT_EMAIL }
}

export default function PrivacyPolicy() {
  const { supportEmail } = useLoaderData<typeof loader>()
  return (
    <LegalPage
      title="Privacy policy"
      updated={UPDATED}
      intro={
        <p className="lead">
          {company.product} is built to hold as little personal data as it can: owners give us what an account needs,
          and the customers who hold their cards give us nothing personal at all. This policy explains what we hold,
          why, and for how long.
        </p>
      }
      sections={privacySections(supportEmail)}
    />
  )
}

export const meta: MetaFunction = () => [
  { title: 'Privacy policy — Stampwise' },
  { name: 'description', content: 'What personal data Stampwise holds about owners and card holders, why, and for how long.' },
]
