import { type Transaction } from 'sequelize'
import { logger } from '#app/server/logger.server.ts'
import { queueMail } from '#app/server/mail.server.ts'
import { consumeRateLimit, RATE_LIMITS } from '#app/services/auth/rate-limit.server.ts'
import { staffInvitationEmail } from '#app/services/mail/emails.server.ts'
import { INVITATION_MS, staffStatus, TEAM_MESSAGES } from '#app/utils/staff.ts'
import { issueToken, revokeTokens } from '#models/one-time-token.server.ts'
import {
  countSeatHolders,
  extendInvitation,
  findAccountByEmail,
  findPendingInvitation,
  findTeamMember,
  fitTeamToSeats,
  getStaffSeats,
  insertInvitedStaff,
  lockTeam,
  markStaffRemoved,
} from '#models/staff.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import { normalizeEmail } from '#models/user.server.ts'
import { inviterName } from './invitation.server.ts'

/**
 * The owner's team (docs/product/staff-locations-rules.md; docs/decisions/044-staff-accounts.md): invite,
 * resend, remove, and fitting the team to the plan's seats. Each change runs in one transaction on the owner's
 * locked row, re-fitting the team first, so the seat count it checks is today's. Mail goes after the commit.
 *
 * A refusal is a result the page shows: `status` is its HTTP status (400 a field's message, 404 not this owner's
 * member, 409 no seat or nothing to resend); `upgrade` asks the page to show the way to more seats.
 */
export type TeamRefusal = {
  status: 'error'
  httpStatus: 400 | 404 | 409
  field?: 'name' | 'email'
  message: string
  upgrade?: boolean
}
export type TeamResult = { status: 'success'; message: string } | TeamRefusal

const refuse = (httpStatus: TeamRefusal['httpStatus'], message: string, extra: Partial<TeamRefusal> = {}) =>
  ({ status: 'error', httpStatus, message, ...extra }) as const satisfies TeamRefusal

/**
 * Fits an owner's team to their seats (see fitTeamToSeats): the one call every change of plan makes (billing and
 * admin actions, inside their transaction), and every team change before it counts. Suspended members' sessions end
 * in the same transaction.
 */
export async function reconcileStaffSeats(ownerId: string, transaction: Transaction) {
  await lockTeam(ownerId, transaction)
  const seats = await getStaffSeats(ownerId, transaction)
  const changed = await fitTeamToSeats({ ownerId, seats }, transaction)
  if (changed.suspended.length || changed.restored.length) {
    logger.info({ ownerId, seats, ...changed }, 'staff seats reconciled')
  }
  return { seats, ...changed }
}

/** A free seat, or the refusal with the upgrade path. */
async function seatLeft(ownerId: string, seats: number, transaction: Transaction): Promise<TeamRefusal | null> {
  if ((await countSeatHolders(ownerId, transaction)) < seats) return null
  return refuse(409, TEAM_MESSAGES.seats(seats), { upgrade: true })
}

/**
 * Who an address belongs to, in the owner's terms: one account has one role (docs/product/staff-locations-rules.md).
 * Any account outside the owner's team gets the same answer, so an invitation tells nothing about other businesses or
 * their staff.
 */
async function addressRefusal(ownerId: string, email: string, transaction: Transaction) {
  // An invitation that ran out, this owner's or another's, holds the address no more (ADR 052).
  // It held no seat since it ran out, so removing it is all (app/services/team/invitation-release.server.ts).
  const lapsed = await findPendingInvitation(email, transaction)
  if (lapsed?.lapsed) await markStaffRemoved({ ownerId: lapsed.ownerId, staffId: lapsed.staffId }, transaction)
  const account = await findAccountByEmail(email, transaction)
  if (!account) return null
  if (account.employerId === ownerId) {
    const member = await findTeamMember({ ownerId, staffId: account.id }, transaction)
    if (member && !member.hasPassword) return refuse(400, TEAM_MESSAGES.ownInvitation, { field: 'email' })
    return refuse(400, TEAM_MESSAGES.onTeam, { field: 'email' })
  }
  return refuse(400, TEAM_MESSAGES.hasAccount, { field: 'email' })
}

export async function inviteStaff({
  ownerId,
  name,
  email,
  now = new Date(),
}: {
  ownerId: string
  name: string
  email: string
  now?: Date
}): Promise<TeamResult> {
  const address = normalizeEmail(email)
  await consumeRateLimit(RATE_LIMITS.invitationsPerOwner, ownerId)
  // Counted per address like any other mail we send on request, before anything is written: an owner cannot flood
  // an inbox, and a refusal here leaves no invitation without its mail.
  await consumeRateLimit(RATE_LIMITS.resendPerEmail, address)
  const invited = await withTransaction(async (transaction) => {
    const { seats } = await reconcileStaffSeats(ownerId, transaction)
    const refusal =
      (await addressRefusal(ownerId, address, transaction)) ?? (await seatLeft(ownerId, seats, transaction))
    if (refusal) return refusal
    const staffId = await insertInvitedStaff(
      { ownerId, name, email: address, expiresAt: new Date(now.getTime() + INVITATION_MS) },
      transaction,
    )
    return { staffId, token: await issueToken({ userId: staffId, kind: 'staff_invitation' }, transaction) }
  }).catch((error: { name?: string }) => {
    // Someone signed up with the address between the check and the insert.
    if (error.name === 'SequelizeUniqueConstraintError')
      return refuse(400, TEAM_MESSAGES.hasAccount, { field: 'email' })
    throw error
  })
  if ('status' in invited) return invited
  await queueMail({
    to: address,
    ...staffInvitationEmail({ token: invited.token, name, from: await inviterName(ownerId) }),
  })
  return { status: 'success', message: `Invitation sent to ${address}. It works for 7 days.` }
}

/** A new link and seven more days; an invitation that ran out needs a free seat again. */
export async function resendInvitation({
  ownerId,
  staffId,
  now = new Date(),
}: {
  ownerId: string
  staffId: string
  now?: Date
}): Promise<TeamResult> {
  const known = await findTeamMember({ ownerId, staffId })
  if (!known) return refuse(404, TEAM_MESSAGES.memberGone)
  await consumeRateLimit(RATE_LIMITS.invitationsPerOwner, ownerId)
  await consumeRateLimit(RATE_LIMITS.resendPerEmail, known.email)
  const resent = await withTransaction(async (transaction) => {
    const { seats } = await reconcileStaffSeats(ownerId, transaction)
    const member = await findTeamMember({ ownerId, staffId }, transaction)
    if (!member) return refuse(404, TEAM_MESSAGES.memberGone)
    const status = staffStatus(member, now)
    if (member.hasPassword) return refuse(409, TEAM_MESSAGES.notPending)
    if (status === 'suspended') return refuse(409, TEAM_MESSAGES.paused, { upgrade: true })
    if (status === 'expired') {
      const refusal = await seatLeft(ownerId, seats, transaction)
      if (refusal) return refusal
    }
    await extendInvitation({ ownerId, staffId, expiresAt: new Date(now.getTime() + INVITATION_MS) }, transaction)
    // The new link replaces the old ones.
    await revokeTokens(staffId, 'staff_invitation', transaction)
    return { member, token: await issueToken({ userId: staffId, kind: 'staff_invitation' }, transaction) }
  })
  if ('status' in resent) return resent
  await queueMail({
    to: resent.member.email,
    ...staffInvitationEmail({ token: resent.token, name: resent.member.name, from: await inviterName(ownerId) }),
  })
  return { status: 'success', message: `Invitation sent again to ${resent.member.email}. It works for 7 more days.` }
}

/**
 * Removes a member: their sessions end in the same transaction (the next request with their cookie is a guest's),
 * their links stop working, and a member suspended for want of a seat gets it back.
 */
export async function removeStaff({ ownerId, staffId }: { ownerId: string; staffId: string }): Promise<TeamResult> {
  return withTransaction(async (transaction) => {
    await lockTeam(ownerId, transaction)
    const member = await findTeamMember({ ownerId, staffId }, transaction)
    if (!member || !(await markStaffRemoved({ ownerId, staffId }, transaction))) {
      return refuse(404, TEAM_MESSAGES.memberGone)
    }
    const { restored } = await reconcileStaffSeats(ownerId, transaction)
    const back =
      restored.length === 1
        ? ' One suspended member can stamp again.'
        : restored.length
          ? ` ${restored.length} suspended members can stamp again.`
          : ''
    return { status: 'success', message: `${member.name} was removed from your team.${back}` }
  })
}
