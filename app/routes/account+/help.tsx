import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { FaqItem } from '#app/components/faq-item.tsx'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { TRIAL_DAYS, TRIAL_LIMITS } from '#app/utils/plan-status.ts'
import { TRIAL_STAFF_SEATS } from '#app/utils/staff.ts'
import { listTariffs } from '#models/tariff.server.ts'
import { helpTopics } from './__help-questions.server.tsx'

export const handle: AccountHandle = { title: 'FAQ', back: 'previous' }

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUserId(request)
  return {
    topics: helpTopics({
      tariffs: await listTariffs(),
      trial: { days: TRIAL_DAYS, ...TRIAL_LIMITS, staffSeats: TRIAL_STAFF_SEATS },
    }),
  }
}

/** The owners' FAQ: <details> answers, so they open without JavaScript. */
export default function Help() {
  const { topics } = useLoaderData<typeof loader>()
  return (
    <div className="account-page">
      <h1>FAQ</h1>
      <p className="lead">
        Short answers to what owners ask most. Still stuck? Write to us through the{' '}
        <Link to="/account/contact-us">Feedback form</Link>.
      </p>
      <div className="faq faq--account">
        {topics.map((group) => (
          <section key={group.topic} className="faq__group" aria-label={group.topic}>
            <h2>{group.topic}</h2>
            {group.items.map((item) => (
              <FaqItem key={item.question} {...item} />
            ))}
          </section>
        ))}
      </div>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'FAQ — Stampwise' }]
