import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { type z } from 'zod'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormErrors, UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { TableScroll } from '#app/components/table-scroll.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { rateLimitedFormReply } from '#app/server/rate-limit-reply.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import {
  AdminActionError,
  changePlan,
  confirmInvoicePayment,
  disableAccount,
  enableAccount,
  endSubscription,
  extendTrial,
  grantQuota,
  resendConfirmation,
} from '#app/services/admin/admin-actions.server.ts'
import { requireAdmin } from '#app/services/admin/admin.server.ts'
import { listAuditForUser } from '#app/services/admin/audit.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { getPushQuota } from '#app/services/billing/plan.server.ts'
import { getCardInvoices } from '#app/services/billing/stripe-billing.server.ts'
import { isUserActionIntent, USER_ACTION_SCHEMAS, type UserActionIntent } from '#app/utils/admin-schemas.ts'
import { paymentRows } from '#app/utils/payments.ts'
import { periodText } from '#app/utils/plan-format.ts'
import { planState } from '#app/utils/plan-status.ts'
import {
  getAdminUserProfile,
  listAdminUserCards,
  listRecentPushes,
  listStatusChanges,
  listStripeEventsForUser,
  getAdminStripeBilling,
} from '#models/admin-user-detail.server.ts'
import { getOpenInvoiceForUser, listInvoicesForUser } from '#models/invoice.server.ts'
import { getEmployerForAdmin, getStaffSeats, listStaffForAdmin } from '#models/staff.server.ts'
import { getOwnerSubscription } from '#models/subscription.server.ts'
import { listTariffs } from '#models/tariff.server.ts'
import {
  ChangePlanForm,
  ConfirmPaymentForm,
  ExtendTrialForm,
  GrantQuotaForm,
  SimpleActionForm,
} from './__user-action-forms.tsx'
import {
  AuditTable,
  CardsTable,
  InvoiceFacts,
  ProfileFacts,
  PushesTable,
  StatusHistory,
  PaymentsTable,
  StripeEvents,
  SubscriptionFacts,
} from './__user-sections.tsx'
import { EmployerFacts, StaffTable, staffStateText } from './__user-staff.tsx'

/**
 * /admin/users/{userId}: one account with its subscription, cards, pushes and audit log, and the admin's actions
 * on it (app/services/admin/admin-actions.server.ts). The file is `_index` so that the card editor below this address
 * (users.$userId.cards.$cardId.edit) is a page of its own, not nested in this one.
 */
async function requireUser(userId: string | undefined) {
  const user = await getAdminUserProfile(userId ?? '')
  if (!user) throw notFound('User not found')
  return user
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireAdmin(request)
  const user = await requireUser(params.userId)
  const now = new Date()
  const [
    stored,
    invoice,
    history,
    cards,
    pushes,
    audit,
    tariffs,
    staff,
    seats,
    employer,
    billing,
    stripeEvents,
    transfers,
  ] = await Promise.all([
    getOwnerSubscription(user.id),
    getOpenInvoiceForUser(user.id),
    listStatusChanges(user.id),
    listAdminUserCards(user.id),
    listRecentPushes(user.id),
    listAuditForUser(user.id),
    listTariffs(),
    listStaffForAdmin(user.id),
    getStaffSeats(user.id),
    user.role === 'staff' ? getEmployerForAdmin(user.id) : null,
    getAdminStripeBilling(user.id),
    listStripeEventsForUser(user.id),
    listInvoicesForUser(user.id),
  ])
  // Stripe's invoices of the customer the owner has (or had: a card plan left for a bank transfer keeps its invoices).
  const cardInvoices = billing?.stripeCustomerId ? await getCardInvoices(billing.stripeCustomerId) : null
  const state = stored && planState(stored, now)
  const quota = state && (await getPushQuota(user.id, state, now))
  return {
    user,
    subscription:
      stored && state && quota
        ? {
            status: stored.status,
            effectiveStatus: state.status,
            planName: stored.tariff?.name ?? null,
            tier: stored.tariff?.tier ?? null,
            periodMonths: stored.periodMonths,
            trialEndsAt: stored.trialEndsAt,
            trialDays: state.trialDays,
            periodStartsAt: stored.periodStartsAt,
            periodEndsAt: stored.periodEndsAt,
            accessEndsAt: stored.status === 'waiting_payment' ? stored.accessEndsAt : null,
            additionalQuota: stored.additionalQuota,
            usedThisMonth: quota.usedThisMonth,
            monthlyLimit: quota.monthlyLimit,
            provider: billing?.provider ?? 'manual',
            stripeCustomerId: billing?.stripeCustomerId ?? null,
            stripeSubscriptionId: billing?.stripeSubscriptionId ?? null,
          }
        : null,
    invoice,
    history,
    stripeEvents,
    payments: paymentRows(transfers, Array.isArray(cardInvoices) ? cardInvoices : []),
    cardInvoicesUnavailable: cardInvoices === 'unavailable',
    cards,
    pushes,
    audit,
    tariffs: tariffs.map(({ tier, name }) => ({ tier, name })),
    staff: staff.map((member) => ({ ...member, state: staffStateText(member, now.getTime()) })),
    seats,
    employer,
  }
}

type ActionData = { intent: UserActionIntent | null; result: SubmissionResult<string[]> | null }
const answer = (intent: UserActionIntent | null, result: SubmissionResult<string[]> | null) =>
  formReply<ActionData>({ intent, result })

const PLAN_INTENTS = new Set<UserActionIntent>([
  'confirm-payment',
  'change-plan',
  'extend-trial',
  'grant-quota',
  'end-subscription',
])
const STAFF_HAS_NO_PLAN = "A staff member has no plan of their own: their employer's plan applies."

type UserAction = z.output<(typeof USER_ACTION_SCHEMAS)[UserActionIntent]>

function runAction(target: { actorId: string; userId: string }, value: UserAction): Promise<string> {
  switch (value.intent) {
    case 'confirm-payment':
      return confirmInvoicePayment({ ...target, invoiceId: value.invoiceId })
    case 'change-plan':
      return changePlan({ ...target, tier: value.tier, periodMonths: value.periodMonths === '12' ? 12 : 1 })
    case 'extend-trial':
      return extendTrial({ ...target, days: value.days })
    case 'grant-quota':
      return grantQuota({ ...target, messages: value.messages })
    case 'end-subscription':
      return endSubscription(target)
    case 'resend-confirmation':
      return resendConfirmation(target)
    case 'disable':
      return disableAccount(target)
    case 'enable':
      return enableAccount(target)
  }
}

export async function action({ request, params }: ActionFunctionArgs) {
  const actorId = await requireAdmin(request)
  const user = await requireUser(params.userId)
  const formData = await readFormData(request)
  const intent = formData.get('intent')
  if (!isUserActionIntent(intent)) return answer(null, null)
  const submission = parseWithZod(formData, { schema: USER_ACTION_SCHEMAS[intent] })
  if (submission.status !== 'success') return answer(intent, submission.reply())
  // A staff member has no plan of their own (their employer's seats and plan apply): a plan action would start one.
  if (user.role === 'staff' && PLAN_INTENTS.has(intent)) {
    return answer(intent, submission.reply({ formErrors: [STAFF_HAS_NO_PLAN] }))
  }
  try {
    const message = await runAction({ actorId, userId: user.id }, submission.value as UserAction)
    return redirectWithToast(`/admin/users/${user.id}`, { message, durationMs: 8000 })
  } catch (error) {
    if (error instanceof AdminActionError) {
      const reply = error.field ? { fieldErrors: { [error.field]: [error.message] } } : { formErrors: [error.message] }
      return answer(intent, submission.reply(reply))
    }
    // The message only, without Retry-After, as this page has always answered.
    if (error instanceof RateLimitedError) return rateLimitedFormReply(submission, error.message, { extra: { intent } })
    throw error
  }
}

export default function AdminUser() {
  const {
    user,
    subscription,
    invoice,
    history,
    stripeEvents,
    payments,
    cardInvoicesUnavailable,
    cards,
    pushes,
    audit,
    tariffs,
    staff,
    seats,
    employer,
  } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ActionData | undefined
  // Each form shows only the answer to its own submission.
  const resultFor = (intent: UserActionIntent) => (actionData?.intent === intent ? actionData.result : undefined)
  return (
    <div className="admin-user">
      <p>
        <Link to="/admin">← All users</Link>
      </p>
      <h1>{user.email}</h1>
      {/* A refused submission of none of the forms (no intent, or a body that is no form). */}
      {actionData && actionData.intent === null ? (
        <FormErrors id="user-action-errors" errors={[UNREADABLE_SUBMISSION]} />
      ) : null}
      {/* A staff member's page has no plan forms to show a plan action's refusal beside. */}
      {employer && actionData?.intent && PLAN_INTENTS.has(actionData.intent) ? (
        <FormErrors id="user-action-errors" errors={[STAFF_HAS_NO_PLAN]} />
      ) : null}

      <section className="panel" aria-labelledby="profile-title">
        <h2 id="profile-title">Profile</h2>
        <ProfileFacts user={user} />
        <div className="admin-actions">
          {user.emailConfirmedAt || user.isPremade ? null : (
            <SimpleActionForm intent="resend-confirmation" lastResult={resultFor('resend-confirmation')} />
          )}
          {user.disabledAt ? (
            <SimpleActionForm intent="enable" lastResult={resultFor('enable')} />
          ) : (
            <SimpleActionForm intent="disable" lastResult={resultFor('disable')} />
          )}
        </div>
      </section>

      {employer ? (
        <section className="panel" aria-labelledby="employer-title">
          <h2 id="employer-title">Staff member</h2>
          <EmployerFacts employer={employer} />
        </section>
      ) : (
        <section className="panel" aria-labelledby="staff-title">
          <h2 id="staff-title">Staff</h2>
          <TableScroll label="Staff">
            <StaffTable staff={staff} seats={seats} />
          </TableScroll>
        </section>
      )}

      {employer ? null : (
        <section className="panel" aria-labelledby="subscription-title">
          <h2 id="subscription-title">Subscription</h2>
          {subscription ? (
            <SubscriptionFacts subscription={subscription} />
          ) : (
            <p>No subscription yet: one starts with the first action below.</p>
          )}
          {invoice ? <InvoiceFacts invoice={invoice} /> : <p>No open invoice.</p>}
          <div className="admin-actions">
            {invoice ? (
              <ConfirmPaymentForm
                invoice={{
                  id: invoice.id,
                  number: invoice.number,
                  label: `${invoice.tariffName}, ${periodText(invoice.periodMonths)}`,
                }}
                lastResult={resultFor('confirm-payment')}
              />
            ) : null}
            <ChangePlanForm tariffs={tariffs} lastResult={resultFor('change-plan')} />
            {subscription?.periodStartsAt ? null : <ExtendTrialForm lastResult={resultFor('extend-trial')} />}
            <GrantQuotaForm lastResult={resultFor('grant-quota')} />
            {subscription && subscription.status !== 'ended' ? (
              <SimpleActionForm intent="end-subscription" lastResult={resultFor('end-subscription')} />
            ) : null}
          </div>
          <h3>Payments</h3>
          {cardInvoicesUnavailable ? (
            <p>Stripe could not be reached just now: its card invoices are missing below. Reload in a minute.</p>
          ) : null}
          <TableScroll label="Payments">
            <PaymentsTable payments={payments} />
          </TableScroll>
          <h3>Status history</h3>
          <TableScroll label="Status history">
            <StatusHistory changes={history} />
          </TableScroll>
          {stripeEvents.length > 0 ? (
            <>
              <h3>Stripe events</h3>
              <TableScroll label="Stripe events">
                <StripeEvents events={stripeEvents} />
              </TableScroll>
            </>
          ) : null}
        </section>
      )}

      <section className="panel" aria-labelledby="cards-title">
        <h2 id="cards-title">Cards</h2>
        <TableScroll label="Cards">
          <CardsTable userId={user.id} cards={cards} />
        </TableScroll>
      </section>

      <section className="panel" aria-labelledby="pushes-title">
        <h2 id="pushes-title">Recent pushes</h2>
        <TableScroll label="Recent pushes">
          <PushesTable pushes={pushes} />
        </TableScroll>
      </section>

      <section className="panel" aria-labelledby="audit-title">
        <h2 id="audit-title">Audit log</h2>
        <TableScroll label="Audit log">
          <AuditTable entries={audit} />
        </TableScroll>
      </section>
    </div>
  )
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.user.email ?? 'User'} — Stampwise admin` },
]

// An unknown user is said in the admin's words, inside the admin chrome; other errors go on to the admin layout.
export function ErrorBoundary() {
  return <GeneralErrorBoundary statusHandlers={{ 404: () => <NoSuchUser /> }} passOnOthers />
}

function NoSuchUser() {
  return (
    <>
      <h1>No such user</h1>
      <p>
        This account does not exist, or was deleted. <Link to="/admin">Back to all users</Link>
      </p>
    </>
  )
}
