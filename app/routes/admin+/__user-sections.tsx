import { Link } from '@remix-run/react'
import { formatDate, formatDollars, periodText, STATUS_TEXT } from '#app/utils/plan-format.ts'

/** The read-only parts of /admin/users/{userId}: plain tables and lists, rendered on the server. */
type When = Date | string | null

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })
export const formatWhen = (value: When) => (value ? `${dateTime.format(new Date(value))} UTC` : '—')
const day = (value: When) => (value ? formatDate(value) : '—')
const yesNo = (value: boolean) => (value ? 'Yes' : 'No')

export function ProfileFacts({ user }: { user: { email: string; role: string; emailConfirmedAt: When; isPremade: boolean; disabledAt: When; hasPassword: boolean; createdAt: When } }) {
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
}

export function SubscriptionFacts({ subscription: s }: { subscription: SubscriptionView }) {
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        {STATUS_TEXT[s.status] ?? s.status} <code className="status-code">{s.status}</code>
        {s.effectiveStatus !== s.status ? <> (due now: <code className="status-code">{s.effectiveStatus}</code>)</> : null}
      </dd>
      <dt>Plan</dt>
      <dd>{s.planName ? `${s.tier} — ${s.planName}${s.periodMonths ? `, ${periodText(s.periodMonths)}` : ''}` : 'None chosen'}</dd>
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
    </dl>
  )
}

export function InvoiceFacts({ invoice }: { invoice: { number: string; tariffName: string; periodMonths: number; amountCents: number; reason: string; createdAt: When } }) {
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

export function StatusHistory({ changes }: { changes: { id: string; fromStatus: string | null; toStatus: string; cause: string; actorEmail: string | null; changedAt: When }[] }) {
  if (!changes.length) return <p>No status changes recorded.</p>
  return (
    <table className="admin-table">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">From</th>
          <th scope="col">To</th>
          <th scope="col">Cause</th>
          <th scope="col">By</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => (
          <tr key={change.id}>
            <td>{formatWhen(change.changedAt)}</td>
            <td>{change.fromStatus ?? '—'}</td>
            <td>{change.toStatus}</td>
            <td>{change.cause}</td>
            <td>{change.actorEmail ?? 'system'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

export function CardsTable({ userId, cards }: { userId: string; cards: { id: string; title: string; businessName: string; status: string; holders: number; createdAt: When }[] }) {
  if (!cards.length) return <p>No cards yet.</p>
  return (
    <table className="admin-table">
      <thead>
        <tr>
          <th scope="col">Title</th>
          <th scope="col">Business</th>
          <th scope="col">Status</th>
          <th scope="col">Holders</th>
          <th scope="col">Created</th>
          <th scope="col">
            <span className="visually-hidden">Edit</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {cards.map((card) => (
          <tr key={card.id}>
            <td>{card.title || 'Untitled card'}</td>
            <td>{card.businessName}</td>
            <td>{card.status}</td>
            <td>{card.holders}</td>
            <td>{day(card.createdAt)}</td>
            <td>
              <Link to={`/admin/users/${userId}/cards/${card.id}/edit`}>Edit card</Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

type Push = { id: string; cardTitle: string; kind: string; title: string; status: string; quotaSource: string | null; recipients: number | null; sent: number; failed: number; pending: number; queuedAt: When; createdAt: When }

export function PushesTable({ pushes }: { pushes: Push[] }) {
  if (!pushes.length) return <p>No push messages sent.</p>
  return (
    <table className="admin-table">
      <thead>
        <tr>
          <th scope="col">Sent</th>
          <th scope="col">Card</th>
          <th scope="col">Message</th>
          <th scope="col">Status</th>
          <th scope="col">Delivered</th>
          <th scope="col">Failed</th>
          <th scope="col">Pending</th>
        </tr>
      </thead>
      <tbody>
        {pushes.map((push) => (
          <tr key={push.id}>
            <td>{formatWhen(push.queuedAt ?? push.createdAt)}</td>
            <td>{push.cardTitle}</td>
            <td>
              {push.title}
              {push.kind !== 'message' ? <> ({push.kind})</> : null}
              {push.quotaSource === 'additional' ? <> — additional quota</> : null}
            </td>
            <td>{push.status}</td>
            <td>{push.sent}</td>
            <td>{push.failed}</td>
            <td>{push.pending}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const json = (value: unknown) => (value === null || value === undefined ? '—' : JSON.stringify(value, null, 1))

export function AuditTable({ entries }: { entries: { id: string; actorEmail: string | null; action: string; targetType: string; before: unknown; after: unknown; createdAt: When }[] }) {
  if (!entries.length) return <p>No admin actions on this account yet.</p>
  return (
    <table className="admin-table admin-audit">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Admin</th>
          <th scope="col">Action</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>{formatWhen(entry.createdAt)}</td>
            <td>{entry.actorEmail ?? '—'}</td>
            <td>
              <code>{entry.action}</code> <span className="admin-muted">({entry.targetType})</span>
            </td>
            <td>
              <pre className="admin-json">{json(entry.before)}</pre>
            </td>
            <td>
              <pre className="admin-json">{json(entry.after)}</pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
