import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { planBox } from '#app/utils/plan-status.ts'
import { requireOwnerPlanState } from '#app/utils/plan.server.ts'
import { requireUserId } from '#app/utils/session.server.ts'

// No title in the header (specification, route table).
export const handle: AccountHandle = { back: 'previous' }

/** Where the push gate sends an owner whose trial or plan has ended and who has no additional quota left. */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const state = await requireOwnerPlanState(userId)
  return {
    box: planBox(state),
    wasTrial: !state.everPaid,
    hasAccess: state.subActiveFlag === 1,
    additionalQuota: state.additionalQuota,
  }
}

export default function LimitsTrial() {
  const { box, wasTrial, hasAccess, additionalQuota } = useLoaderData<typeof loader>()
  return (
    <article className="limits-page">
      <h1>{hasAccess ? 'Your plan is active' : wasTrial ? 'Your free trial is over' : 'Your plan has ended'}</h1>
      <p className="lead">
        {hasAccess
          ? `${box.title}: ${box.subtitle}. You can use every feature of your plan.`
          : 'Choose a plan to send push messages and create cards again. Nothing you made is lost.'}
      </p>
      <div className="limits-columns">
        <section className="panel">
          <h2>What keeps working</h2>
          <ul>
            <li>Your customers keep their cards, stamps and rewards.</li>
            <li>You can still stamp cards and redeem rewards at the counter.</li>
            <li>Your QR codes and posters keep working, and new customers can still join your active cards.</li>
            <li>Your notification history stays available.</li>
          </ul>
        </section>
        <section className="panel">
          <h2>What is paused</h2>
          <ul>
            <li>Sending push messages{additionalQuota > 0 ? ` (you still have ${additionalQuota} additional messages)` : ''}.</li>
            <li>Creating new cards.</li>
          </ul>
        </section>
      </div>
      <h2>How to continue</h2>
      <ol className="steps-list">
        <li>Choose Basic, Standard or Premium, billed monthly or yearly.</li>
        <li>Pay the invoice by bank transfer, with its number as the reference.</li>
        <li>We confirm the payment within one working day and everything opens again.</li>
      </ol>
      <p className="actions">
        <Link to="/account/tariffs" className="button">
          View plans
        </Link>{' '}
        <Link to="/account/contact-us" className="button button--ghost">
          Contact us
        </Link>
      </p>
    </article>
  )
}

export const meta: MetaFunction = () => [{ title: 'Your plan has ended — Stampwise' }]
