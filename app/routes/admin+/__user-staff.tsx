import { Link } from '@remix-run/react'
import { DataTable, type Column } from '#app/components/data-table.tsx'
import { formatWhen } from './__user-sections.tsx'

/**
 * /admin/users/{userId}, issue 20: an owner's staff (removed ones too, with when), and for a staff user whose team
 * they are on. Read-only: the owner manages the team at /account/team.
 */
type When = Date | string | null
type StaffRow = {
  id: string
  name: string
  email: string
  hasPassword: boolean
  invitationExpiresAt: When
  suspendedAt: When
  removedAt: When
  createdAt: When
  state: string
}

/** The member's state in words, decided by the loader at its moment (the page renders it as it came). */
export function staffStateText(member: Omit<StaffRow, 'state'>, now: number) {
  if (member.removedAt) return `Removed ${formatWhen(member.removedAt)}`
  if (member.suspendedAt) return `Suspended since ${formatWhen(member.suspendedAt)} (over the plan's seats)`
  if (member.hasPassword) return 'Active'
  const expires = member.invitationExpiresAt ? new Date(member.invitationExpiresAt) : null
  return expires && expires.getTime() > now ? `Invited until ${formatWhen(expires)}` : 'Invitation expired'
}

export function StaffTable({ staff, seats }: { staff: StaffRow[]; seats: number }) {
  const columns: Column<StaffRow>[] = [
    { header: 'Name', cell: (member) => member.name },
    { header: 'E-mail', cell: (member) => <Link to={`/admin/users/${member.id}`}>{member.email}</Link> },
    { header: 'State', cell: (member) => member.state },
    { header: 'Invited', cell: (member) => formatWhen(member.createdAt) },
  ]
  return (
    <>
      <p>Staff seats of the plan: {seats}.</p>
      <DataTable rows={staff} columns={columns} empty={<p>No staff.</p>} caption="Staff" />
    </>
  )
}

export function EmployerFacts({ employer }: { employer: { id: string; email: string; name: string } }) {
  return (
    <dl className="facts">
      <dt>Staff of</dt>
      <dd>
        <Link to={`/admin/users/${employer.id}`}>{employer.email}</Link>
      </dd>
      <dt>Called by the owner</dt>
      <dd>{employer.name}</dd>
    </dl>
  )
}
