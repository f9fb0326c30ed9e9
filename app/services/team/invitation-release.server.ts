import { type Transaction } from 'sequelize'
import { consumeRateLimit, RATE_LIMITS } from '#app/services/auth/rate-limit.server.ts'
import { raiseNotice } from '#models/notice.server.ts'
import { consumeToken } from '#models/one-time-token.server.ts'
import { findPendingInvitation, getInvitee, markStaffRemoved, type PendingInvitation } from '#models/staff.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import { inviterName, JOIN_MESSAGES } from './invitation.server.ts'
import { reconcileStaffSeats } from './team.server.ts'

/**
 * An invitation holds an address only while it is pending, and only as an invitation (docs/product/hardening.md,
 * "Invitations"; docs/decisions/052-invitations-hold-no-address.md): the person who owns the address may decline it, or
 * make their own account, which withdraws it; one that ran out is released as soon as the address is wanted. A released
 * invitation is a removed staff row (its link dead, the address free, the seat given back), and the owner is told why.
 */
export type ReleaseReason = 'declined' | 'own-account' | 'lapsed'

const NOTICE: Record<ReleaseReason, (name: string) => string | null> = {
  declined: (name) => `${name} declined your invitation to your team.`,
  'own-account': (name) =>
    `${name} made their own Stampwise account with the invited address, so your invitation was withdrawn.`,
  // The owner's team page already shows it ran out; its row going needs no second word.
  lapsed: () => null,
}

export async function releaseInvitation(
  invitation: PendingInvitation,
  reason: ReleaseReason,
  transaction: Transaction,
): Promise<void> {
  const { staffId, ownerId, name } = invitation
  if (!(await markStaffRemoved({ ownerId, staffId }, transaction))) return
  await reconcileStaffSeats(ownerId, transaction)
  const message = NOTICE[reason](name)
  if (message) {
    await raiseNotice(
      { userId: ownerId, kind: 'team_invitation', message, link: '/account/team', dedupeKey: `invitation-${staffId}` },
      transaction,
    )
  }
}

/**
 * The address's pending invitation that still holds it, after releasing one that ran out; with the business that
 * sent it, as the sign-up page names it.
 */
export async function invitationHoldingAddress(
  email: string,
  transaction: Transaction,
): Promise<(PendingInvitation & { businessName: string }) | null> {
  const invitation = await findPendingInvitation(email, transaction)
  if (!invitation) return null
  if (invitation.lapsed) {
    await releaseInvitation(invitation, 'lapsed', transaction)
    return null
  }
  return { ...invitation, businessName: await inviterName(invitation.ownerId, transaction) }
}

export const DECLINE_MESSAGES = {
  joined:
    'This invitation was already accepted, so it cannot be declined. Ask the business to remove you from its team.',
} as const

/**
 * 'Not you? Decline' from the invitation mail: the link is used once, the invitation released and the owner told.
 * The address is then free for anything, an own account included.
 */
export async function declineInvitation({
  token,
  ip,
}: {
  token: string
  ip: string
}): Promise<{ status: 'declined'; businessName: string } | { status: 'error'; message: string }> {
  await consumeRateLimit(RATE_LIMITS.tokenChecksPerIp, ip)
  return withTransaction(async (transaction) => {
    const state = await consumeToken(token, 'staff_invitation', transaction)
    if (state.state !== 'valid') {
      const message = state.state === 'used' ? JOIN_MESSAGES.withdrawn : JOIN_MESSAGES[state.state]
      return { status: 'error' as const, message }
    }
    const invitee = await getInvitee(state.userId, transaction)
    if (!invitee || invitee.removed) return { status: 'error' as const, message: JOIN_MESSAGES.withdrawn }
    if (invitee.hasPassword) return { status: 'error' as const, message: DECLINE_MESSAGES.joined }
    const businessName = await inviterName(invitee.employerId, transaction)
    await releaseInvitation(
      { staffId: state.userId, ownerId: invitee.employerId, name: invitee.name, lapsed: false },
      'declined',
      transaction,
    )
    return { status: 'declined' as const, businessName }
  })
}
