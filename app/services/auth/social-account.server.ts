import { type Transaction } from 'sequelize'
import { z } from 'zod'
import { invitationHoldingAddress } from '#app/services/team/invitation-release.server.ts'
import { startTrial } from '#models/subscription.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import {
  createUser,
  findCredentialsByEmail,
  findUserBySubject,
  linkSubject,
  normalizeEmail,
} from '#models/user.server.ts'
import { isPendingInvitee, STAFF_SUSPENDED } from './auth.server.ts'
import { type IdTokenClaims, type OidcProviderSettings } from './oidc-provider.server.ts'
import { OidcSignInError } from './oidc-strategy.server.ts'

/**
 * Which account a verified Google or Apple identity signs in to: the one linked to its subject; else the account
 * with the same e-mail, linked now when both sides have confirmed that address; else a new confirmed account with
 * a trial. Anything else is refused with an OidcSignInError that tells the person what to do instead.
 */
export async function findOrCreateSocialAccount(
  provider: Pick<OidcProviderSettings, 'name' | 'label'>,
  claims: IdTokenClaims,
): Promise<{ userId: string; created: boolean }> {
  const resolve = () => withTransaction((transaction) => resolveAccount(provider, claims, transaction))
  try {
    return await resolve()
  } catch (error) {
    // Two callbacks for the same person raced to create or link the account: the second now finds it.
    if ((error as { name?: string }).name === 'SequelizeUniqueConstraintError') return resolve()
    throw error
  }
}

const EmailSchema = z.email().max(254)

async function resolveAccount(
  { name, label }: Pick<OidcProviderSettings, 'name' | 'label'>,
  claims: IdTokenClaims,
  transaction: Transaction,
): Promise<{ userId: string; created: boolean }> {
  const linked = await findUserBySubject(name, claims.sub, transaction)
  if (linked) {
    if (linked.disabledAt) throw disabled()
    if (linked.suspendedAt) throw suspended()
    return { userId: linked.id, created: false }
  }

  const parsed = EmailSchema.safeParse(normalizeEmail(claims.email ?? ''))
  if (!parsed.success) {
    throw new OidcSignInError(
      `${label} did not share a usable e-mail address, so we can't sign you in with it. Please sign up with your e-mail and password.`,
      'no usable e-mail in ID token',
    )
  }
  const email = parsed.data
  if (claims.email_verified !== true) {
    throw new OidcSignInError(
      `${label} has not verified your e-mail address, so we can't sign you in with it. Please use your e-mail and password.`,
      'e-mail not verified by provider',
    )
  }

  // An invitation that ran out holds nothing; a pending one is the person's to accept or decline (ADR 052).
  const invitation = await invitationHoldingAddress(email, transaction)
  if (invitation) {
    throw new OidcSignInError(
      `${invitation.businessName} invited this address to their team. To join them, accept the invitation from its e-mail first: then you can sign in with ${label}. To use Stampwise for your own business instead, decline it from that e-mail ('Not you? Decline') and sign in with ${label} again.`,
      'pending staff invitee',
    )
  }
  const existing = await findCredentialsByEmail(email, transaction)
  if (existing) {
    if (existing.disabledAt) throw disabled()
    if (existing.suspendedAt) throw suspended()
    // Linking would let them in without accepting the invitation (its expiry, the owner's seats).
    if (isPendingInvitee(existing)) {
      throw new OidcSignInError(
        `Accept your invitation from the e-mail first: then you can sign in with ${label}.`,
        'pending staff invitee',
      )
    }
    if (!existing.emailConfirmedAt) {
      throw new OidcSignInError(
        'An account with this e-mail address exists but the address is not confirmed yet. Please confirm it first (use the link we e-mailed you) or sign in with your password.',
        'existing account not confirmed',
      )
    }
    if (!(await linkSubject(existing.id, name, claims.sub, transaction))) {
      throw new OidcSignInError(
        `The account with this e-mail address is already linked to another ${label} account. Please sign in with your password.`,
        'existing account linked to another subject',
      )
    }
    return { userId: existing.id, created: false }
  }

  const user = await createUser(
    {
      email,
      passwordHash: null,
      emailConfirmedAt: new Date(),
      ...(name === 'google' ? { googleSubject: claims.sub } : { appleSubject: claims.sub }),
    },
    transaction,
  )
  await startTrial(user.id, transaction, `account created with ${label}`)
  return { userId: user.id, created: true }
}

const suspended = () => new OidcSignInError(STAFF_SUSPENDED, 'staff member suspended over the seats')

const disabled = () =>
  new OidcSignInError('This account has been disabled. Please contact support.', 'account disabled')
