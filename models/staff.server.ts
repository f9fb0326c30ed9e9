import { type Transaction } from 'sequelize'
import { TRIAL_STAFF_SEATS } from '#app/utils/staff.ts'
import { selectRows } from './transaction.server.ts'
import { employerDisabledAt } from './user.server.ts'

/**
 * An owner's team (migration 0014): staff are users with role 'staff' and employer_id = the owner. Every statement
 * names its owner and the columns it returns (never a password hash). A pending invitation is a staff user without
 * a password whose invitation_expires_at is in the future; it holds a seat, as does every member who has joined
 * (suspended or not). Removed members stay as rows (the activity names them) but hold nothing.
 */
const select = selectRows

/** Seat holders, in seat order: the oldest first, so the newest are the ones beyond the seats. */
const SEAT_HOLDERS = /* sql */ `
  select id, row_number() over (order by created_at, id) as place
  from users
  where employer_id = cast(:ownerId as uuid) and role = 'staff' and removed_at is null
    and (password_hash is not null or invitation_expires_at > now())`

/**
 * Serialises an owner's team changes (invite, resend, remove, reconcile) on the owner's row: two invitations sent at
 * once cannot both take the last seat. `for no key update` leaves foreign keys to the owner (sessions, cards, the
 * staff rows being inserted) free.
 */
export async function lockTeam(ownerId: string, transaction: Transaction) {
  await select(`select id from users where id = cast(:ownerId as uuid) for no key update`, { ownerId }, transaction)
}

/**
 * The owner's seats: those of the plan last paid for (tariffs.staff_seats), else the trial's. Owners without a
 * subscription (an admin, an old row) have the trial's.
 */
export async function getStaffSeats(ownerId: string, transaction?: Transaction): Promise<number> {
  const [row] = await select<{ seats: number | null }>(
    `select t.staff_seats as seats
     from subscriptions s join tariffs t on t.id = s.tariff_id
     where s.user_id = cast(:ownerId as uuid) and s.period_starts_at is not null`,
    { ownerId },
    transaction,
  )
  return row?.seats ?? TRIAL_STAFF_SEATS
}

export async function countSeatHolders(ownerId: string, transaction?: Transaction): Promise<number> {
  const [row] = await select<{ count: number }>(
    `select count(*)::int as count from (${SEAT_HOLDERS}) holders`,
    { ownerId },
    transaction,
  )
  return row!.count
}

export type TeamMember = {
  id: string
  name: string
  email: string
  hasPassword: boolean
  invitationExpiresAt: Date | null
  suspendedAt: Date | null
  createdAt: Date
}

const MEMBER_COLUMNS = /* sql */ `id, staff_name as name, email, password_hash is not null as "hasPassword",
  invitation_expires_at as "invitationExpiresAt", suspended_at as "suspendedAt", created_at as "createdAt"`

/** The owner's team as the list shows it (removed members left out), oldest first. */
export async function listTeam(ownerId: string): Promise<TeamMember[]> {
  return select<TeamMember>(
    `select ${MEMBER_COLUMNS} from users
     where employer_id = cast(:ownerId as uuid) and role = 'staff' and removed_at is null
     order by created_at, id`,
    { ownerId },
  )
}

/** One member of this owner's team, not removed; null for anyone else's (the page answers as for a missing one). */
export async function findTeamMember(
  { ownerId, staffId }: { ownerId: string; staffId: string },
  transaction?: Transaction,
): Promise<TeamMember | null> {
  const [row] = await select<TeamMember>(
    `select ${MEMBER_COLUMNS} from users
     where id = cast(:staffId as uuid) and employer_id = cast(:ownerId as uuid) and role = 'staff'
       and removed_at is null`,
    { ownerId, staffId },
    transaction,
  )
  return row ?? null
}

/** Who holds an address now (removed members free theirs): role, and for staff whose team and whether pending. */
export async function findAccountByEmail(
  email: string,
  transaction?: Transaction,
): Promise<{ id: string; role: string; employerId: string | null } | null> {
  const [row] = await select<{ id: string; role: string; employerId: string | null }>(
    `select id, role, employer_id as "employerId" from users where email = :email and removed_at is null`,
    { email },
    transaction,
  )
  return row ?? null
}

/** A pending invitation: a staff user with no password (and so no way to sign in) until they accept. */
export async function insertInvitedStaff(
  input: { ownerId: string; name: string; email: string; expiresAt: Date },
  transaction: Transaction,
): Promise<string> {
  const [row] = await select<{ id: string }>(
    `insert into users (email, role, employer_id, staff_name, invitation_expires_at, time_zone)
     select :email, 'staff', id, :name, :expiresAt, time_zone from users where id = cast(:ownerId as uuid)
     returning id`,
    input,
    transaction,
  )
  return row!.id
}

/** A resent invitation: seven more days from now. */
export async function extendInvitation(
  { ownerId, staffId, expiresAt }: { ownerId: string; staffId: string; expiresAt: Date },
  transaction: Transaction,
) {
  await select(
    `update users set invitation_expires_at = :expiresAt
     where id = cast(:staffId as uuid) and employer_id = cast(:ownerId as uuid) and password_hash is null
     returning id`,
    { ownerId, staffId, expiresAt },
    transaction,
  )
}

/**
 * Removes a member: removed_at set (the row stays for the activity, the address is free again), not suspended
 * any more (they hold no seat), their sessions and unused links gone in the same transaction.
 */
export async function markStaffRemoved(
  { ownerId, staffId }: { ownerId: string; staffId: string },
  transaction: Transaction,
) {
  const rows = await select<{ id: string }>(
    `update users set removed_at = now(), suspended_at = null, invitation_expires_at = null
     where id = cast(:staffId as uuid) and employer_id = cast(:ownerId as uuid) and removed_at is null
     returning id`,
    { ownerId, staffId },
    transaction,
  )
  if (!rows.length) return false
  await select(`delete from sessions where user_id = cast(:staffId as uuid) returning id`, { staffId }, transaction)
  await select(
    `update one_time_tokens set used_at = now() where user_id = cast(:staffId as uuid) and used_at is null
     returning id`,
    { staffId },
    transaction,
  )
  return true
}

/**
 * Fits the team to the seats: seat holders beyond them (the newest) are suspended and their sessions end at once;
 * everyone else is not suspended (an upgrade, a removal or an invitation running out gives seats back, oldest
 * first). Idempotent: suspended_at keeps the first time. Returns who changed.
 */
export async function fitTeamToSeats(
  { ownerId, seats }: { ownerId: string; seats: number },
  transaction: Transaction,
): Promise<{ suspended: string[]; restored: string[] }> {
  const suspended = await select<{ id: string }>(
    `update users u set suspended_at = now()
     from (${SEAT_HOLDERS}) holders
     where u.id = holders.id and holders.place > :seats and u.suspended_at is null
     returning u.id`,
    { ownerId, seats },
    transaction,
  )
  const restored = await select<{ id: string }>(
    `update users u set suspended_at = null
     where u.employer_id = cast(:ownerId as uuid) and u.role = 'staff' and u.suspended_at is not null
       and u.id not in (select id from (${SEAT_HOLDERS}) holders where place > :seats)
     returning u.id`,
    { ownerId, seats },
    transaction,
  )
  if (suspended.length) {
    await select(
      `delete from sessions where user_id in (:ids) returning id`,
      { ids: suspended.map((row) => row.id) },
      transaction,
    )
  }
  return { suspended: suspended.map((row) => row.id), restored: restored.map((row) => row.id) }
}

/**
 * Owners with suspended staff, after `afterOwnerId` in id order, `limit` at a time: the housekeeping job re-fits them
 * all (an invitation that ran out frees its seat), a page after another, so none waits behind the first page.
 */
export async function listOwnersWithSuspendedStaff({
  afterOwnerId = null,
  limit = 500,
}: { afterOwnerId?: string | null; limit?: number } = {}): Promise<string[]> {
  const rows = await select<{ ownerId: string }>(
    `select distinct employer_id as "ownerId" from users
     where role = 'staff' and suspended_at is not null and removed_at is null
       and (cast(:afterOwnerId as uuid) is null or employer_id > cast(:afterOwnerId as uuid))
     order by employer_id limit :limit`,
    { afterOwnerId, limit },
  )
  return rows.map((row) => row.ownerId)
}

/**
 * The name an invitation gives its owner: the business on their first card with one. Not the owner's address: the
 * mail to the invitee carries names, never addresses (docs/decisions/052-invitations-hold-no-address.md).
 */
export async function findInviterName(ownerId: string, transaction?: Transaction): Promise<string | null> {
  const [row] = await select<{ name: string }>(
    `select business_name as name from cards where user_id = cast(:ownerId as uuid) and business_name <> ''
     order by created_at limit 1`,
    { ownerId },
    transaction,
  )
  return row?.name ?? null
}

/** The invitee's state behind an invitation link's user (the join page refuses a removed or paused one). */
export type Invitee = {
  email: string
  name: string
  employerId: string
  hasPassword: boolean
  suspended: boolean
  removed: boolean
  /** The owner's account is disabled: their staff are too, and nobody joins them. */
  employerDisabled: boolean
}

export async function getInvitee(staffId: string, transaction?: Transaction): Promise<Invitee | null> {
  const [row] = await select<Invitee>(
    `select email, staff_name as name, employer_id as "employerId", password_hash is not null as "hasPassword",
            suspended_at is not null as suspended, removed_at is not null as removed,
            ${employerDisabledAt('users')} is not null as "employerDisabled"
     from users where id = cast(:staffId as uuid) and role = 'staff'`,
    { staffId },
    transaction,
  )
  return row ?? null
}

/**
 * Accepting: the password set, the address confirmed (the link came to it), the invitation done. False when no row
 * changed (the member was removed meanwhile), so the caller can roll the link's use back.
 */
export async function acceptInvitation(
  { staffId, passwordHash }: { staffId: string; passwordHash: string },
  transaction: Transaction,
): Promise<boolean> {
  const rows = await select<{ id: string }>(
    `update users set password_hash = :passwordHash, email_confirmed_at = coalesce(email_confirmed_at, now()),
       invitation_expires_at = null
     where id = cast(:staffId as uuid) and role = 'staff' and removed_at is null
     returning id`,
    { staffId, passwordHash },
    transaction,
  )
  return rows.length > 0
}

export type AdminStaffRow = {
  id: string
  name: string
  email: string
  hasPassword: boolean
  invitationExpiresAt: Date | null
  suspendedAt: Date | null
  removedAt: Date | null
  createdAt: Date
}

/** The admin's user page: an owner's staff, removed ones included (the admin sees the whole history). */
export async function listStaffForAdmin(ownerId: string): Promise<AdminStaffRow[]> {
  return select<AdminStaffRow>(
    `select id, staff_name as name, email, password_hash is not null as "hasPassword",
            invitation_expires_at as "invitationExpiresAt", suspended_at as "suspendedAt", removed_at as "removedAt",
            created_at as "createdAt"
     from users where employer_id = cast(:ownerId as uuid) and role = 'staff'
     order by removed_at nulls first, created_at, id`,
    { ownerId },
  )
}

/** The admin's page of a staff user: whose staff they are. */
export async function getEmployerForAdmin(
  staffId: string,
): Promise<{ id: string; email: string; name: string } | null> {
  const [row] = await select<{ id: string; email: string; name: string }>(
    `select o.id, o.email, s.staff_name as name
     from users s join users o on o.id = s.employer_id
     where s.id = cast(:staffId as uuid) and s.role = 'staff'`,
    { staffId },
  )
  return row ?? null
}

/** An address's pending invitation (a staff row without a password, not removed): whose, and whether it ran out. */
export type PendingInvitation = { staffId: string; ownerId: string; name: string; lapsed: boolean }

export async function findPendingInvitation(
  email: string,
  transaction?: Transaction,
): Promise<PendingInvitation | null> {
  const [row] = await select<PendingInvitation>(
    `select id as "staffId", employer_id as "ownerId", staff_name as name,
            coalesce(invitation_expires_at <= now(), true) as lapsed
     from users where email = :email and role = 'staff' and password_hash is null and removed_at is null`,
    { email },
    transaction,
  )
  return row ?? null
}
