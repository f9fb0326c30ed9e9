import { parseWithZod } from '@conform-to/zod/v4'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useRevalidator, type MetaFunction } from '@remix-run/react'
import { useEffect, useState } from 'react'
import { z } from 'zod'
import { FormErrors, SubmitButton } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { cancelPlan, PlanError } from '#app/services/billing/billing.server.ts'
import { getPlanOverview } from '#app/services/billing/plan.server.ts'
import { getCardBilling, openBillingPortal } from '#app/services/billing/stripe-billing.server.ts'
import { cancelCardPlan, NOT_BY_CARD, paysByCardNow } from '#app/services/billing/stripe-plan-changes.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import {
  cardUsageText,
  formatDate,
  formatDollars,
  ownerStatusText,
  periodText,
  pushUsageText,
} from '#app/utils/plan-format.ts'
import { listInvoicesForUser } from '#models/invoice.server.ts'

export const CancelPlanSchema = z.object({
  intent: z.literal('cancel'),
  understood: z.literal('on', { error: 'Tick the box to confirm that you want to cancel' }),
})
/** 'Manage billing' of a card plan: to Stripe's Billing Portal. */
export const ManageBillingSchema = z.object({ intent: z.literal('billing') })
export const PlanActionSchema = z.discriminatedUnion('intent', [CancelPlanSchema, ManageBillingSchema], {
  error: 'Choose an action',
})

export const handle: AccountHandle = { title: 'Plan details', back: 'previous' }

export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const { state, box, quota, cards, invoice } = await getPlanOverview(userId)
  // Back from Stripe's checkout: the redirect changes nothing; the plan shows as paid once Stripe's webhook says so.
  const checkout = new URL(request.url).searchParams.has('checkout') ? { confirmed: await paysByCardNow(userId) } : null
  const [cardBilling, paid] = await Promise.all([
    getCardBilling(userId),
    listInvoicesForUser(userId, { status: 'paid' }),
  ])
  return {
    checkout,
    cardBilling,
    // The bank transfers paid before, beside the card's invoices (the open one has its own panel).
    paidTransfers: paid.map(({ id, number, amountCents, tariffName, periodMonths, paidAt }) => ({
      id,
      number,
      amountCents,
      tariffName,
      periodMonths,
      paidAt: paidAt!,
    })),
    box,
    status: state.status,
    inTrial: state.inTrial,
    trialDays: state.trialDays,
    planName: state.inTrial ? null : (state.tariff?.name ?? null),
    periodMonths: state.periodMonths,
    periodEndsAt: state.periodEndsAt,
    accessEndsAt: state.accessEndsAt,
    quota,
    cards,
    invoice,
  }
}

export async function action({ request }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const submission = parseWithZod(await readFormData(request), { schema: PlanActionSchema })
  if (submission.status !== 'success') return formReply({ result: submission.reply() })
  if (submission.value.intent === 'billing') {
    const portal = await openBillingPortal(userId)
    if (!portal) return formReply({ result: submission.reply({ formErrors: [NOT_BY_CARD] }) }, 409)
    if ('error' in portal) return formReply({ result: submission.reply({ formErrors: [portal.error] }) }, 503)
    return redirect(portal.url, 303)
  }
  if (await paysByCardNow(userId)) {
    // A card plan is cancelled at Stripe, at the period's end, so that it is not charged again.
    const cancelled = await cancelCardPlan({ userId })
    if (!cancelled.ok) {
      return formReply({ result: submission.reply({ formErrors: [cancelled.message] }) }, cancelled.status)
    }
    return redirectWithToast('/account/plan', {
      message: `Your plan is cancelled. It runs until ${formatDate(cancelled.periodEndsAt)}.`,
    })
  }
  try {
    const { periodEndsAt } = await cancelPlan({ userId })
    return redirectWithToast('/account/plan', {
      message: periodEndsAt
        ? `Your plan is cancelled. It runs until ${formatDate(periodEndsAt)}.`
        : 'Your plan is cancelled.',
    })
  } catch (error) {
    if (!(error instanceof PlanError)) throw error
    return formReply({ result: submission.reply({ formErrors: [error.message] }) }, 409)
  }
}

type CardBillingView = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>['cardBilling']>

/** The card, the next charge, 'Manage billing' and Stripe's invoices of a card plan. */
function CardBillingPanel({ billing }: { billing: CardBillingView }) {
  return (
    <section className="panel" aria-labelledby="card-billing-title">
      <h2 id="card-billing-title">Payment by card</h2>
      {billing.available ? (
        <>
          <dl className="facts">
            <dt>Card</dt>
            <dd>
              {billing.card
                ? `${billing.card.brand.charAt(0).toUpperCase()}${billing.card.brand.slice(1)} ending in ${billing.card.last4} (expires ${billing.card.expires})`
                : 'None saved'}
            </dd>
            <dt>Next charge</dt>
            <dd>
              {billing.nextCharge
                ? `${formatDollars(billing.nextCharge.amountCents)} on ${formatDate(billing.nextCharge.at)}`
                : 'None: the plan is set to end'}
            </dd>
          </dl>
          <Form method="POST">
            <input type="hidden" name="intent" value="billing" />
            <SubmitButton pendingLabel="Opening...">Manage billing</SubmitButton>
          </Form>
          <h3>Card invoices</h3>
          {billing.invoices.length ? (
            <ul className="card-invoices" role="list">
              {billing.invoices.map((invoice) => (
                <li key={invoice.id}>
                  {formatDate(invoice.at)}: {invoice.number}, {formatDollars(invoice.amountCents)} ({invoice.status})
                  {invoice.url ? (
                    <>
                      {' '}
                      <a href={invoice.url} rel="noreferrer">
                        View invoice {invoice.number}
                      </a>
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : (
            <p>No card invoices yet.</p>
          )}
        </>
      ) : (
        <p>Stripe could not be reached just now, so your card details are not shown. Reload the page in a minute.</p>
      )}
    </section>
  )
}

/** Seconds between the page's own checks while a card payment is being confirmed (with JavaScript). */
const CHECKOUT_POLL_MS = 2_000

/**
 * After Stripe's checkout: 'being confirmed' until Stripe's webhook has made the plan active; a reload shows it, and
 * with JavaScript the page asks again by itself every two seconds (for two minutes at most).
 */
function CheckoutStatus({ confirmed, planTitle }: { confirmed: boolean; planTitle: string }) {
  const revalidator = useRevalidator()
  const [checks, setChecks] = useState(0)
  useEffect(() => {
    if (confirmed || checks >= 60) return
    const timer = setTimeout(() => {
      setChecks((count) => count + 1)
      if (revalidator.state === 'idle') revalidator.revalidate()
    }, CHECKOUT_POLL_MS)
    return () => clearTimeout(timer)
  }, [confirmed, checks, revalidator])
  return confirmed ? (
    <p className="notice-panel" role="status">
      Thank you: your card payment is confirmed and your {planTitle} is active.
    </p>
  ) : (
    <p className="notice-panel" role="status">
      Your payment is being confirmed: this takes a few seconds. <Link to="/account/plan?checkout=1">Reload</Link> to
      see your plan.
    </p>
  )
}

export default function PlanDetails() {
  const plan = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const errors = Object.values(actionData?.result?.error ?? {}).flat() as string[]
  return (
    <>
      <h1>Plan details</h1>
      {plan.checkout ? <CheckoutStatus confirmed={plan.checkout.confirmed} planTitle={plan.box.title} /> : null}
      {/* The cancel form (and its errors) shows only for an active plan; a refusal for any other plan shows here. */}
      {plan.status === 'active' ? null : <FormErrors id="plan-errors" errors={errors} />}
      <section className="panel plan-summary" aria-labelledby="plan-summary-title">
        <h2 id="plan-summary-title">{plan.box.title}</h2>
        <p>{plan.box.subtitle}</p>
        <dl className="facts">
          <dt>Plan</dt>
          <dd>{plan.planName ?? 'Free trial'}</dd>
          <dt>Status</dt>
          <dd className="plan-status">{ownerStatusText(plan.status)}</dd>
          {plan.inTrial ? (
            <>
              <dt>Trial</dt>
              <dd>{plan.trialDays} days left</dd>
            </>
          ) : null}
          {plan.periodMonths && plan.planName ? (
            <>
              <dt>Billing period</dt>
              <dd>{periodText(plan.periodMonths)}</dd>
            </>
          ) : null}
          {plan.periodEndsAt && plan.planName ? (
            <>
              <dt>{plan.status === 'active' ? 'Renews on' : 'Period ends'}</dt>
              <dd>{formatDate(plan.periodEndsAt)}</dd>
            </>
          ) : null}
          {plan.accessEndsAt ? (
            <>
              <dt>Access until</dt>
              <dd>{formatDate(plan.accessEndsAt)} unless the invoice is paid</dd>
            </>
          ) : null}
          <dt>Push messages this month</dt>
          <dd>{pushUsageText(plan.quota.usedThisMonth, plan.quota.monthlyLimit)}</dd>
          <dt>Additional push messages</dt>
          <dd>{plan.quota.additionalLeft}</dd>
          <dt>Active cards</dt>
          <dd>{cardUsageText(plan.cards.active, plan.cards.limit, plan.cards.drafts)}</dd>
        </dl>
        <Link to="/account/tariffs" className="button">
          {plan.status === 'active' ? 'Change plan' : 'View plans'}
        </Link>
      </section>

      {plan.cardBilling ? <CardBillingPanel billing={plan.cardBilling} /> : null}

      {plan.paidTransfers.length ? (
        <section className="panel" aria-labelledby="transfer-invoices-title">
          <h2 id="transfer-invoices-title">Invoices paid by bank transfer</h2>
          <ul className="card-invoices" role="list">
            {plan.paidTransfers.map((invoice) => (
              <li key={invoice.id}>
                {`${formatDate(invoice.paidAt)}: ${invoice.number}, ${formatDollars(invoice.amountCents)} `}
                {`(${invoice.tariffName}, ${invoice.periodMonths === 12 ? 'yearly' : 'monthly'})`}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {plan.invoice ? (
        <section className="panel invoice" aria-labelledby="invoice-title">
          <h2 id="invoice-title">Invoice {plan.invoice.number}</h2>
          <dl className="facts">
            <dt>Plan</dt>
            <dd>
              {plan.invoice.tariffName}, {periodText(plan.invoice.periodMonths)}
            </dd>
            <dt>Amount</dt>
            <dd>{formatDollars(plan.invoice.amountCents)}</dd>
            <dt>Period</dt>
            <dd>{plan.invoice.periodMonths === 12 ? '12 months' : '1 month'} from the day we receive your payment</dd>
            <dt>Status</dt>
            <dd>Waiting for payment</dd>
          </dl>
          <h3>How to pay</h3>
          <p className="payment-instructions">{plan.invoice.paymentInstructions}</p>
        </section>
      ) : null}

      {plan.status === 'active' ? (
        <details className="panel danger-zone">
          <summary>Cancel plan</summary>
          <p>
            Your plan keeps working until {plan.periodEndsAt ? formatDate(plan.periodEndsAt) : 'the end of the period'}.
            After that your cards keep working for your customers, but you cannot create cards or send push messages.
          </p>
          <Form method="POST">
            <input type="hidden" name="intent" value="cancel" />
            <FormErrors id="cancel-errors" errors={errors} />
            <label className="checkbox">
              <input type="checkbox" name="understood" required /> I understand, cancel my plan
            </label>
            <SubmitButton pendingLabel="Cancelling...">Cancel plan</SubmitButton>
          </Form>
        </details>
      ) : null}
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Plan details — Stampwise' }]
