import { Link } from '@remix-run/react'
import { DataTable, type Column } from '#app/components/data-table.tsx'
import { PROVIDER_TEXT, type PaymentRow } from '#app/utils/payments.ts'
import { formatDate, formatDollars, periodText, STATUS_TEXT } from '#app/utils/plan-format.ts'
import type { AdminPushRow } from '#models/admin-user-detail.server.ts'

/** The read-only parts of /admin/users/{userId}: plain tables and lists, rendered on the server. */
type When = Date | string | null

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })
export const formatWhen = (value: When) => (value ? `${dateTime.format(new Date(value))} UTC` : '—')
const day = (value: When) => (value ? formatDate(value) : '—')
const yesNo = (value: boolean) => (value ? 'Yes' : 'No')

export function ProfileFacts({
  user,
}: {
  user: {
    email: string
    role: string
    emailConfirmedAt: When
    isPremade: boolean
    disabledAt: When
    hasPassword: boolean
    createdAt: When
  }
}) {
  return (
    <dl className="facts">
      <dt>E-mail</dt>
      <dd>{user.email}</dd>
      <dt>Role</dt>
      <dd>{user.role}</dd>
      <dt>E-mail confirmed</dt>
      <dd>{user.emailConfirmedAt ? `Yes, ${formatWhen(user.emailConfirmedAt)}` : 'No'}</dd>
      <dt>Pre-made account</dt>
      <dd>{user.isPremade ? 'Yes, waiting for the owner to choose a password' : 'No'}</dd>
      <dt>Password set</dt>
      <dd>{yesNo(user.hasPassword)}</dd>
      <dt>Disabled</dt>
      <dd>{user.disabledAt ? `Yes, since ${formatWhen(user.disabledAt)}` : 'No'}</dd>
      <dt>Created</dt>
      <dd>{formatWhen(user.createdAt)}</dd>
    </dl>
  )
}

export type SubscriptionView = {
  status: string
  effectiveStatus: string
  planName: string | null
  tier: number | null
  periodMonths: number | null
  trialEndsAt: When
  trialDays: number
  periodStartsAt: When
  periodEndsAt: When
  accessEndsAt: When
  additionalQuota: number
  usedThisMonth: number
  monthlyLimit: number
  /** Who takes the payments, and Stripe's ids when it is Stripe (issue 33, item 6). */
  provider: 'manual' | 'stripe'
  stripeCustomerId: string | null
  stripeSubscriptionId: string | null
}

export function SubscriptionFacts({ subscription: s }: { subscription: SubscriptionView }) {
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        {/* The words only: "Free trial trial" read the stored code as a second word (issue 30, item 7). */}
        {STATUS_TEXT[s.status] ?? s.status}
        {s.effectiveStatus !== s.status ? ` (due now: ${STATUS_TEXT[s.effectiveStatus] ?? s.effectiveStatus})` : null}
      </dd>
      <dt>Plan</dt>
      <dd>
        {s.planName
          ? `${s.tier} — ${s.planName}${s.periodMonths ? `, ${periodText(s.periodMonths)}` : ''}`
          : 'None chosen'}
      </dd>
      <dt>Trial ends</dt>
      <dd>
        {day(s.trialEndsAt)}
        {s.trialDays > 0 ? ` (${s.trialDays} days left)` : ''}
      </dd>
      <dt>Paid period</dt>
      <dd>{s.periodStartsAt ? `${day(s.periodStartsAt)} – ${day(s.periodEndsAt)}` : 'Never paid'}</dd>
      {s.accessEndsAt ? (
        <>
          <dt>Access until</dt>
          <dd>{day(s.accessEndsAt)} unless the invoice is paid</dd>
        </>
      ) : null}
      <dt>Push messages this month</dt>
      <dd>
        {s.usedThisMonth} used of {s.monthlyLimit}
      </dd>
      <dt>Additional quota</dt>
      <dd>{s.additionalQuota}</dd>
      <dt>Pays by</dt>
      <dd>{s.provider === 'stripe' ? 'Card (Stripe)' : 'Bank transfer'}</dd>
      {s.stripeCustomerId ? (
        <>
          <dt>Stripe customer</dt>
          <dd className="facts__code">{s.stripeCustomerId}</dd>
        </>
      ) : null}
      {s.stripeSubscriptionId ? (
        <>
          <dt>Stripe subscription</dt>
          <dd className="facts__code">{s.stripeSubscriptionId}</dd>
        </>
      ) : null}
    </dl>
  )
}

export function InvoiceFacts({
  invoice,
}: {
  invoice: {
    number: string
    tariffName: string
    periodMonths: number
    amountCents: number
    reason: string
    createdAt: When
  }
}) {
  return (
    <dl className="facts">
      <dt>Open invoice</dt>
      <dd>{invoice.number}</dd>
      <dt>For</dt>
      <dd>
        {invoice.tariffName}, {periodText(invoice.periodMonths)} ({invoice.reason})
      </dd>
      <dt>Amount</dt>
      <dd>{formatDollars(invoice.amountCents)}</dd>
      <dt>Issued</dt>
      <dd>{formatWhen(invoice.createdAt)}</dd>
    </dl>
  )
}

type StatusChange = {
  id: string
  fromStatus: string | null
  toStatus: string
  cause: string
  actorEmail: string | null
  changedAt: When
}

const statusHistoryColumns: Column<StatusChange>[] = [
  { header: 'When', cell: (change) => formatWhen(change.changedAt) },
  { header: 'From', cell: (change) => change.fromStatus ?? '—' },
  { header: 'To', cell: (change) => change.toStatus },
  { header: 'Cause', cell: (change) => change.cause },
  { header: 'By', cell: (change) => change.actorEmail ?? 'system' },
]

export function StatusHistory({ changes }: { changes: StatusChange[] }) {
  return <DataTable rows={changes} columns={statusHistoryColumns} empty={<p>No status changes recorded.</p>} />
}

type StripeEvent = { id: string; type: string; outcome: string; appliedAt: When }

const stripeEventColumns: Column<StripeEvent>[] = [
  { header: 'When', cell: (event) => formatWhen(event.appliedAt) },
  { header: 'Event', cell: (event) => event.type },
  { header: 'What it did', cell: (event) => event.outcome },
  { header: 'Id', cell: (event) => <span className="facts__code">{event.id}</span> },
]

/** Stripe's events applied to the plan, newest first (the webhook's record: stripe-webhook.server.ts). */
export function StripeEvents({ events }: { events: StripeEvent[] }) {
  return <DataTable rows={events} columns={stripeEventColumns} empty={<p>No Stripe events.</p>} />
}

const paymentColumns: Column<PaymentRow>[] = [
  { header: 'When', cell: (payment) => formatWhen(payment.at) },
  { header: 'Paid by', cell: (payment) => PROVIDER_TEXT[payment.provider] },
  {
    header: 'Invoice',
    cell: (payment) =>
      payment.url ? (
        <a href={payment.url} rel="noreferrer">
          {payment.number}
        </a>
      ) : (
        payment.number
      ),
  },
  { header: 'For', cell: (payment) => payment.what ?? '—' },
  { header: 'Amount', cell: (payment) => payment.amount },
  { header: 'Status', cell: (payment) => payment.status },
]

/** Every invoice of both ways to pay, newest first: bank transfers from here, card invoices as Stripe has them. */
export function PaymentsTable({ payments }: { payments: PaymentRow[] }) {
  return <DataTable rows={payments} columns={paymentColumns} empty={<p>No payments yet.</p>} />
}

type CardRow = { id: string; title: string; businessName: string; status: string; holders: number; createdAt: When }

export function CardsTable({ userId, cards }: { userId: string; cards: CardRow[] }) {
  const columns: Column<CardRow>[] = [
    { header: 'Title', cell: (card) => card.title || 'Untitled card' },
    { header: 'Business', cell: (card) => card.businessName },
    { header: 'Status', cell: (card) => card.status },
    { header: 'Holders', cell: (card) => card.holders },
    { header: 'Created', cell: (card) => day(card.createdAt) },
    {
      header: <span className="visually-hidden">Edit</span>,
      cell: (card) => <Link to={`/admin/users/${userId}/cards/${card.id}/edit`}>Edit card</Link>,
    },
  ]
  return <DataTable rows={cards} columns={columns} empty={<p>No cards yet.</p>} />
}

// As the loader's JSON carries the model's row: dates may arrive as strings.
type Push = Omit<AdminPushRow, 'queuedAt' | 'createdAt'> & { queuedAt: When; createdAt: When }

const pushColumns: Column<Push>[] = [
  { header: 'Sent', cell: (push) => formatWhen(push.queuedAt ?? push.createdAt) },
  { header: 'Card', cell: (push) => push.cardTitle },
  {
    header: 'Message',
    cell: (push) => (
      <>
        {push.title}
        {push.kind !== 'message' ? <> ({push.kind})</> : null}
        {push.quotaSource === 'additional' ? <> — additional quota</> : null}
      </>
    ),
  },
  { header: 'Status', cell: (push) => push.status },
  { header: 'Delivered', cell: (push) => push.sent },
  { header: 'Failed', cell: (push) => push.failed },
  { header: 'Pending', cell: (push) => push.pending },
]

export function PushesTable({ pushes }: { pushes: Push[] }) {
  return <DataTable rows={pushes} columns={pushColumns} empty={<p>No push messages sent.</p>} />
}

const json = (value: unknown) => (value === null || value === undefined ? '—' : JSON.stringify(value, null, 1))

type AuditEntry = {
  id: string
  actorEmail: string | null
  action: string
  targetType: string
  before: unknown
  after: unknown
  createdAt: When
}

const auditColumns: Column<AuditEntry>[] = [
  { header: 'When', cell: (entry) => formatWhen(entry.createdAt) },
  { header: 'Admin', cell: (entry) => entry.actorEmail ?? '—' },
  {
    header: 'Action',
    cell: (entry) => (
      <>
        <code>{entry.action}</code> <span className="admin-muted">({entry.targetType})</span>
      </>
    ),
  },
  { header: 'Before', cell: (entry) => <pre className="admin-json">{json(entry.before)}</pre> },
  { header: 'After', cell: (entry) => <pre className="admin-json">{json(entry.after)}</pre> },
]

export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <DataTable
      rows={entries}
      columns={auditColumns}
      empty={<p>No admin actions on this account yet.</p>}
      className="admin-table admin-audit"
    />
  )
}
