import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { getEnv } from '#app/server/env.server.ts'
import { company } from '#app/utils/company.ts'

const BELIEFS = [
  {
    title: 'Loyalty should not cost customers their privacy',
    text: 'A stamp card never needed a name, an e-mail address or a phone number, so ours does not ask for them.',
  },
  {
    title: 'Software should work on the devices people already have',
    text: 'Old phones, patchy shop Wi-Fi and browsers with scripts blocked are everyday reality. Every page we build is tested with JavaScript turned off.',
  },
  {
    title: 'Prices should be simple',
    text: 'Monthly or yearly, no set-up fees, no charge per customer. You can see every price on our home page.',
  },
  {
    title: 'A message is a privilege',
    text: 'Monthly allowances keep push messages rare enough to be welcome, which is what makes them work.',
  },
] as const

export async function loader() {
  return { supportEmail: getEnv().SUPPORT_EMAIL }
}

export default function About() {
  const { supportEmail } = useLoaderData<typeof loader>()
  return (
    <main className="container page">
      <header className="page-header">
        <p className="eyebrow">About us</p>
        <h1>About Stampwise</h1>
        <p className="lead">
          We make loyalty cards that a small business can set up in an afternoon and its customers can use without
          installing anything.
        </p>
      </header>
      <div className="prose">
        <h2>Why we built it</h2>
        <p>
          {company.product} started in London in {company.founded} with a simple observation: the paper stamp card still
          beats most loyalty apps. Everyone understands it, and nobody has to download anything. Its problems are just
          as familiar: cards get lost, stamps get copied, and once a card leaves the counter the shop has no way to talk
          to the person holding it.
        </p>
        <p>
          The loyalty apps we looked at fixed those problems by asking customers to install an app and hand over their
          e-mail address. Most customers never do. So we built the simplest thing that could work: a stamp card that
          opens from a QR code, lives on the customer’s phone, and lets the shop send a short message when there is
          something worth saying.
        </p>

        <h2>What we believe</h2>
        <ul className="beliefs" role="list">
          {BELIEFS.map((belief) => (
            <li key={belief.title}>
              <h3>{belief.title}</h3>
              <p>{belief.text}</p>
            </li>
          ))}
        </ul>

        <h2>Who we are</h2>
        <p>
          We are a small, independent team based in London. We are not paid by advertisers and we do not sell data: our
          only income is the subscriptions that businesses pay us. That keeps our interests simple. We do well when your
          card brings your customers back.
        </p>

        <h2>Company details</h2>
        <dl className="facts">
          <dt>Legal name</dt>
          <dd>{company.legalName}</dd>
          <dt>Registration</dt>
          <dd>{company.registration}</dd>
          <dt>Founded</dt>
          <dd>{company.founded}</dd>
          <dt>Contact</dt>
          <dd>
            <a href={`mailto:${supportEmail}`}>{supportEmail}</a> or our <Link to="/contacts">contact form</Link>
          </dd>
        </dl>
      </div>
    </main>
  )
}

export const meta: MetaFunction = () => [
  { title: 'About us — Stampwise' },
  { name: 'description', content: 'Who makes Stampwise, why, and what we believe about loyalty cards and privacy.' },
]
