import { type Transaction } from 'sequelize'
import { hashPassword } from '#app/services/auth/password.server.ts'
import { consumeRateLimit, RATE_LIMITS } from '#app/services/auth/rate-limit.server.ts'
import { consumeToken, inspectToken, type TokenState } from '#models/one-time-token.server.ts'
import { acceptInvitation, findInviterName, getInvitee } from '#models/staff.server.ts'
import { withTransaction } from '#models/transaction.server.ts'

/**
 * The invitee's side (/join-team?token=): the link shows who invited them; choosing a password under the sign-up
 * policy accepts it, confirms the address (the link came to it) and the page signs them in, landing on /staff.
 */
export const JOIN_MESSAGES = {
  unknown: 'This invitation link is invalid. Please ask the business to send a new invitation.',
  expired: 'This invitation has expired. Please ask the business to send a new one.',
  used: 'This invitation has already been accepted. Log in with your e-mail and password.',
  withdrawn: 'This invitation was withdrawn by the business.',
  replaced: (businessName: string) =>
    `This link was replaced by a newer invitation. Please use the latest e-mail from ${businessName}.`,
  ownerDisabled: 'This business no longer uses Stampwise, so the invitation cannot be accepted.',
  signedIn: (email: string) => `You are signed in as ${email}. Log out to accept this invitation.`,
  paused: "This invitation is paused: the business's plan has fewer staff seats than its team. Please ask the owner.",
} as const

export type Invitation =
  | { state: 'valid'; staffId: string; name: string; email: string; businessName: string }
  | { state: 'refused'; message: string }

/** Who invited the member, as the mail and the page name them: the business on their first card. */
export async function inviterName(ownerId: string, transaction?: Transaction): Promise<string> {
  return (await findInviterName(ownerId, transaction)) ?? INVITER_FALLBACK
}

export const INVITER_FALLBACK = 'A Stampwise business'

async function invitationOf(state: TokenState): Promise<Invitation> {
  if (state.state !== 'valid' && state.state !== 'used')
    return { state: 'refused', message: JOIN_MESSAGES[state.state] }
  const invitee = await getInvitee(state.userId)
  if (!invitee || invitee.removed) return { state: 'refused', message: JOIN_MESSAGES.withdrawn }
  if (invitee.employerDisabled) return { state: 'refused', message: JOIN_MESSAGES.ownerDisabled }
  if (invitee.hasPassword) return { state: 'refused', message: JOIN_MESSAGES.used }
  // Used without a password set: "Resend" revoked this link when it mailed a newer one.
  if (state.state === 'used') {
    return { state: 'refused', message: JOIN_MESSAGES.replaced(await inviterName(invitee.employerId)) }
  }
  if (invitee.suspended) return { state: 'refused', message: JOIN_MESSAGES.paused }
  return {
    state: 'valid',
    staffId: state.userId,
    name: invitee.name,
    email: invitee.email,
    businessName: await inviterName(invitee.employerId),
  }
}

/** What the link is, without using it (the page checks it on load). */
export async function checkInvitation({ token, ip }: { token: string; ip: string }): Promise<Invitation> {
  await consumeRateLimit(RATE_LIMITS.tokenChecksPerIp, ip)
  return invitationOf(await inspectToken(token, 'staff_invitation'))
}

/**
 * Accepts the invitation: the link is used once (however many requests race with it), the password set and the
 * address confirmed in one transaction. A paused or withdrawn invitation is refused without using the link.
 */
export async function joinTeam({
  token,
  password,
  ip,
}: {
  token: string
  password: string
  ip: string
}): Promise<{ status: 'success'; staffId: string } | { status: 'error'; message: string }> {
  await consumeRateLimit(RATE_LIMITS.tokenChecksPerIp, ip)
  const before = await invitationOf(await inspectToken(token, 'staff_invitation'))
  if (before.state !== 'valid') return { status: 'error', message: before.message }
  const passwordHash = await hashPassword(password)
  return withTransaction(async (transaction) => {
    const state = await consumeToken(token, 'staff_invitation', transaction)
    if (state.state !== 'valid') {
      return {
        status: 'error' as const,
        message: state.state === 'used' ? JOIN_MESSAGES.used : JOIN_MESSAGES[state.state],
      }
    }
    // Suspended or removed between the check and now; removed after this read, the update changes no row.
    const invitee = await getInvitee(state.userId, transaction)
    if (!invitee || invitee.removed) throw new InvitationWithdrawn()
    if (invitee.employerDisabled) throw new OwnerDisabled()
    if (invitee.suspended) throw new InvitationPaused()
    if (!(await acceptInvitation({ staffId: state.userId, passwordHash }, transaction))) throw new InvitationWithdrawn()
    return { status: 'success' as const, staffId: state.userId }
  }).catch((error: unknown) => {
    // Thrown to roll the link's use back: it works again once the owner has a seat for them.
    if (error instanceof InvitationPaused) return { status: 'error' as const, message: JOIN_MESSAGES.paused }
    if (error instanceof InvitationWithdrawn) return { status: 'error' as const, message: JOIN_MESSAGES.withdrawn }
    if (error instanceof OwnerDisabled) return { status: 'error' as const, message: JOIN_MESSAGES.ownerDisabled }
    throw error
  })
}

class InvitationPaused extends Error {}
class InvitationWithdrawn extends Error {}
class OwnerDisabled extends Error {}
