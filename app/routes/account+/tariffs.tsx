import { parseWithZod } from '@conform-to/zod/v4'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, type MetaFunction } from '@remix-run/react'
import { z } from 'zod'
import { FormErrors } from '#app/components/forms.tsx'
import { PlanFeatures } from '#app/components/plan-features.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { isStripeOn } from '#app/server/stripe.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { choosePlan, PlanError } from '#app/services/billing/billing.server.ts'
import { sharedPlanFeatures } from '#app/services/billing/plan-features.server.ts'
import { requireOwnerPlanState } from '#app/services/billing/plan.server.ts'
import { startCardCheckout } from '#app/services/billing/stripe-checkout.server.ts'
import { changeCardPlan, paysByCardNow } from '#app/services/billing/stripe-plan-changes.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { formatDollars, RECOMMENDED_TIER } from '#app/utils/plan-format.ts'
import { getOpenInvoiceForUser } from '#models/invoice.server.ts'
import { listTariffs } from '#models/tariff.server.ts'

export const ChoosePlanSchema = z.object({
  tier: z.coerce.number({ error: 'Choose a plan' }).int().min(1, 'Choose a plan').max(3, 'Choose a plan'),
  periodMonths: z.enum(['1', '12'], { error: 'Choose monthly or yearly billing' }).transform(Number),
  // By card (Stripe's checkout, when it is on) or by bank transfer (an invoice): the transfer when the form says none.
  method: z.enum(['card', 'transfer'], { error: 'Choose how to pay' }).default('transfer'),
})

export const PAYS_BY_CARD =
  'You pay by card: choose Pay by card to change your plan, or cancel it on Plan details first.'

export const handle: AccountHandle = { title: 'Pricing', back: 'account' }

export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const [state, tariffs, invoice] = await Promise.all([
    requireOwnerPlanState(userId),
    listTariffs(),
    getOpenInvoiceForUser(userId),
  ])
  // The plan whose limits apply now; a plan chosen in the trial is not "current" until it is paid.
  const currentTier =
    state.subActiveFlag === 1 && !state.inTrial && state.everPaid ? (state.tariff?.tier ?? null) : null
  return {
    tariffs,
    current: currentTier ? { tier: currentTier, periodMonths: state.periodMonths, status: state.status } : null,
    cardPayments: isStripeOn(),
    shared: sharedPlanFeatures(),
    pendingInvoice: invoice && {
      number: invoice.number,
      tariffName: invoice.tariffName,
      periodMonths: invoice.periodMonths,
    },
  }
}

export async function action({ request }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const submission = parseWithZod(await readFormData(request), { schema: ChoosePlanSchema })
  if (submission.status !== 'success') return formReply({ result: submission.reply() })
  const { tier, periodMonths, method } = submission.value
  if (await paysByCardNow(userId)) {
    // A card plan changes at Stripe (with its proration), never through an invoice beside it.
    if (method !== 'card') {
      return formReply({ result: submission.reply({ formErrors: [PAYS_BY_CARD] }) }, 409)
    }
    const change = await changeCardPlan({ userId, tier, periodMonths: periodMonths as 1 | 12 })
    if (!change.ok) return formReply({ result: submission.reply({ formErrors: [change.message] }) }, change.status)
    return redirectWithToast('/account/plan', {
      message: `Your plan is changed. Stripe counts the difference on your next charge.`,
    })
  }
  if (method === 'card') {
    const checkout = await startCardCheckout({ userId, tier, periodMonths: periodMonths as 1 | 12 })
    // To Stripe's page (303: the browser GETs it); the plan changes when Stripe's webhook says it is paid.
    if (checkout.ok) return redirect(checkout.url, 303)
    return formReply({ result: submission.reply({ formErrors: [checkout.message] }) }, checkout.status)
  }
  const state = await requireOwnerPlanState(userId)
  if (state.status === 'active' && state.tariff?.tier === tier && state.periodMonths === periodMonths) {
    return formReply({ result: submission.reply({ formErrors: ['This is already your plan.'] }) }, 409)
  }
  try {
    const invoice = await choosePlan({ userId, tier, periodMonths: periodMonths as 1 | 12 })
    return redirectWithToast('/account/plan', {
      message: `Invoice ${invoice.number} is ready: pay it to start your plan.`,
    })
  } catch (error) {
    if (!(error instanceof PlanError)) throw error
    return formReply({ result: submission.reply({ formErrors: [error.message] }) }, 409)
  }
}

/** The plan and period the owner pays for now: not for sale again, it leads to its details. */
function CurrentPlanLink({ period }: { period: string }) {
  return (
    <Link to="/account/plan" className="button button--ghost button--block plan__current-link">
      Your plan ({period}): details
    </Link>
  )
}

export default function Tariffs() {
  const { tariffs, current, pendingInvoice, cardPayments, shared } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const choosing = navigation.state !== 'idle' && navigation.formAction?.startsWith('/account/tariffs')
  return (
    <>
      <h1>Pricing</h1>
      <p className="lead">
        Pay monthly, or yearly and save two months. Every plan has unlimited card holders.{' '}
        {cardPayments
          ? 'Pay by card and your plan starts at once (during your trial, the first charge is at its end); or pay by invoice and bank transfer, and it starts as soon as we receive the payment.'
          : 'You pay by invoice and bank transfer; your plan starts as soon as we receive the payment.'}
      </p>
      {pendingInvoice ? (
        <p className="notice-panel" role="status">
          Invoice <strong>{pendingInvoice.number}</strong> for the {pendingInvoice.tariffName} plan is waiting for
          payment. <Link to="/account/plan">See how to pay</Link>. Choosing another plan replaces it.
        </p>
      ) : null}
      {/* The plan and period come from the buttons, not from fields: every error shows here. */}
      <FormErrors id="choose-plan-errors" errors={Object.values(actionData?.result?.error ?? {}).flat() as string[]} />
      <ul className="plans plans--account" role="list">
        {tariffs.map((tariff) => {
          const isCurrent = current?.tier === tariff.tier
          const recommended = tariff.tier === RECOMMENDED_TIER
          const classes = ['plan', recommended ? 'plan--recommended' : '', isCurrent ? 'plan--current' : '']
            .filter(Boolean)
            .join(' ')
          return (
            <li key={tariff.tier} className={classes}>
              <h2 className="plan__name">
                {tariff.name}
                {isCurrent ? <span className="plan__badge plan__badge--current"> Current plan</span> : null}
                {recommended ? <span className="plan__badge"> Recommended</span> : null}
              </h2>
              <p className="plan__price">
                <span className="plan__amount">{formatDollars(tariff.monthlyPriceCents)}</span>/month
              </p>
              <p className="plan__alt">or {formatDollars(tariff.yearlyPriceCents)}/year</p>
              <PlanFeatures plan={tariff} shared={shared} />
              {cardPayments ? (
                <div className="plan__choose">
                  {([1, 12] as const).map((months) => {
                    const period = months === 12 ? 'yearly' : 'monthly'
                    if (isCurrent && current?.periodMonths === months && current.status === 'active') {
                      return <CurrentPlanLink key={months} period={period} />
                    }
                    const amount = months === 12 ? tariff.yearlyPriceCents : tariff.monthlyPriceCents
                    return (
                      <div key={months} className="plan__pay" role="group" aria-label={`${tariff.name}, ${period}`}>
                        <p className="plan__pay-period">
                          {months === 12 ? 'Yearly' : 'Monthly'}: {formatDollars(amount)}
                        </p>
                        {(['card', 'transfer'] as const).map((method) => {
                          const label = method === 'card' ? 'Pay by card' : 'Pay by bank transfer'
                          return (
                            <Form key={method} method="POST">
                              <input type="hidden" name="tier" value={tariff.tier} />
                              <input type="hidden" name="periodMonths" value={String(months)} />
                              <input type="hidden" name="method" value={method} />
                              <button
                                type="submit"
                                className={
                                  method === 'card' ? 'button button--block' : 'button button--ghost button--block'
                                }
                                aria-label={`${label}: ${tariff.name}, ${period}`}
                                disabled={choosing}
                              >
                                {label}
                              </button>
                            </Form>
                          )
                        })}
                      </div>
                    )
                  })}
                </div>
              ) : (
                <Form method="POST" className="plan__choose" aria-label={`Choose ${tariff.name}`}>
                  <input type="hidden" name="tier" value={tariff.tier} />
                  {([1, 12] as const).map((months) => {
                    const period = months === 12 ? 'yearly' : 'monthly'
                    // The plan the owner pays for now is not for sale again: it says so and leads to its details.
                    if (isCurrent && current?.periodMonths === months && current.status === 'active') {
                      return <CurrentPlanLink key={months} period={period} />
                    }
                    // Filled buttons only on the recommended plan (yearly first in weight): one clear suggestion.
                    const filled = recommended && !isCurrent && months === 12
                    return (
                      <button
                        key={months}
                        type="submit"
                        name="periodMonths"
                        value={String(months)}
                        className={filled ? 'button button--block' : 'button button--ghost button--block'}
                        disabled={choosing}
                      >
                        {!isCurrent
                          ? `Choose ${tariff.name} ${period}`
                          : current?.periodMonths === months
                            ? `Choose ${tariff.name} ${period} again`
                            : `Switch to ${period} billing`}
                      </button>
                    )
                  })}
                </Form>
              )}
            </li>
          )
        })}
      </ul>
      <p className="plans__note">
        Prices in US dollars, plus VAT where it applies. A push message counts once however many customers receive it.
        Questions? <Link to="/account/contact-us">Contact us</Link>.
      </p>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Pricing — Stampwise' }]
