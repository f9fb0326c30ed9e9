import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { requireOwnerPlanState } from '#app/services/billing/plan.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { formatDate } from '#app/utils/plan-format.ts'
import { planBox, type PlanState } from '#app/utils/plan-status.ts'

// No title in the header (specification, route table).
export const handle: AccountHandle = { back: 'previous' }

/**
 * Where the push gate sends an owner whose trial or plan has ended and who has no additional quota left. Anyone
 * may open it, so it says what applies now: everything while the trial or plan runs, what pauses once it ended.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const state = await requireOwnerPlanState(userId)
  const situation = limitsSituation(state)
  return {
    situation,
    heading: HEADINGS[situation],
    box: planBox(state),
    trialDays: state.trialDays,
    // While waiting for payment: when access stops; while cancelled: when the paid period ends.
    until: state.accessEndsAt ?? (state.status === 'cancelled' ? state.periodEndsAt : null),
    additionalQuota: state.additionalQuota,
  }
}

type Situation = 'trial' | 'plan' | 'unpaid' | 'trial-over' | 'ended'

function limitsSituation(state: PlanState): Situation {
  if (state.subActiveFlag === 0) return state.everPaid ? 'ended' : 'trial-over'
  if (state.inTrial) return 'trial'
  return state.status === 'waiting_payment' ? 'unpaid' : 'plan'
}

const HEADINGS: Record<Situation, string> = {
  trial: 'Your free trial is running',
  plan: 'Your plan is active',
  unpaid: 'Your plan is waiting for payment',
  'trial-over': 'Your free trial is over',
  ended: 'Your plan has ended',
}

export default function LimitsTrial() {
  const { situation, heading, box, trialDays, until, additionalQuota } = useLoaderData<typeof loader>()
  const ended = situation === 'ended' || situation === 'trial-over'
  return (
    <article className="limits-page">
      <h1>{heading}</h1>
      <p className="lead">
        {situation === 'trial'
          ? `${trialDays} days free trial left. During the trial you can use every feature: create cards and send push messages.`
          : situation === 'plan'
            ? `${box.title}: ${box.subtitle}. You can use every feature of your plan${until ? ` until ${formatDate(until)}` : ''}.`
            : situation === 'unpaid'
              ? `Everything keeps working${until ? ` until ${formatDate(until)}` : ''}. Pay the invoice to keep your plan.`
              : 'Choose a plan to send push messages and create cards again. Nothing you made is lost.'}
      </p>
      <div className="limits-columns">
        <section className="panel">
          <h2>{ended ? 'What keeps working' : situation === 'trial' ? 'When the trial ends' : 'If your plan ends'}</h2>
          {ended ? null : (
            <p>Sending push messages and creating new cards wait until you choose a plan. The rest keeps working:</p>
          )}
          <ul>
            <li>Your customers keep their cards, stamps and rewards.</li>
            <li>You can still stamp cards and redeem rewards at the counter.</li>
            <li>Your QR codes and posters keep working, and new customers can still join your active cards.</li>
            <li>Your notification history stays available.</li>
          </ul>
        </section>
        {ended ? (
          <section className="panel">
            <h2>What is paused</h2>
            <ul>
              <li>
                {additionalQuota > 0
                  ? `Sending push messages, once your ${additionalQuota} additional messages are used.`
                  : 'Sending push messages.'}
              </li>
              <li>Creating new cards.</li>
            </ul>
          </section>
        ) : null}
      </div>
      {situation === 'plan' ? null : (
        <>
          <h2>{ended ? 'How to continue' : 'How to keep going'}</h2>
          <ol className="steps-list">
            <li>Choose Basic, Standard or Premium, billed monthly or yearly.</li>
            <li>Pay the invoice by bank transfer, with its number as the reference.</li>
            <li>
              We confirm the payment within one working day and{' '}
              {ended
                ? 'everything opens again.'
                : situation === 'unpaid'
                  ? 'your plan continues.'
                  : 'your plan starts.'}
            </li>
          </ol>
        </>
      )}
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

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.heading ?? 'Your plan'} — Stampwise` },
]
