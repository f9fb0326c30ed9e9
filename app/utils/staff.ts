import { z } from 'zod'
import { NewPasswordSchema, TokenSchema } from './auth-schemas.ts'
import { isPlainName, PLAIN_NAME_MESSAGE } from './plain-name.ts'
import { isUuid } from './uuid.ts'

/**
 * Staff seats and invitations (docs/product/staff-locations-rules.md;
 * docs/decisions/044-staff-accounts.md), shared by the team page, its action and the invitee's page.
 * Each paid plan's seats are stored with the plan (tariffs.staff_seats: Basic 2, Standard 5, Premium 20); the
 * trial's are here.
 */
export const TRIAL_STAFF_SEATS = 2
export const INVITATION_DAYS = 7
export const INVITATION_MS = INVITATION_DAYS * 24 * 60 * 60 * 1000
export const STAFF_NAME_MAX = 60

export const TEAM_MESSAGES = {
  name: `Enter a name of 1 to ${STAFF_NAME_MAX} characters`,
  email: 'Invalid email format',
  seats: (seats: number) =>
    `Your plan has ${seats} staff ${seats === 1 ? 'seat' : 'seats'} and all are taken (a pending invitation holds one too). Upgrade your plan, or remove a team member.`,
  hasAccount: 'This address already has a Stampwise account, and one account has one role. Please use another address.',
  ownInvitation: 'You have already invited this address: resend the invitation from the list below.',
  onTeam: 'This address is already on your team.',
  memberGone: 'This team member is no longer on your team.',
  notPending: 'This person has already joined your team: there is no invitation to resend.',
  paused: 'This invitation is paused: your team has more members than your plan’s seats.',
} as const

/** The four states the team list shows, decided from the stored row at a moment (a pure function: no GET writes). */
export type StaffStatus = 'active' | 'invited' | 'expired' | 'suspended'

export function staffStatus(
  member: { hasPassword: boolean; invitationExpiresAt: Date | string | null; suspendedAt: Date | string | null },
  now: Date,
): StaffStatus {
  if (member.suspendedAt) return 'suspended'
  if (member.hasPassword) return 'active'
  const expires = member.invitationExpiresAt ? new Date(member.invitationExpiresAt).getTime() : 0
  return expires > now.getTime() ? 'invited' : 'expired'
}

/**
 * The seats an owner has: those of the last plan they paid for, else the trial's. A plan that ends keeps its seats
 * (staff keep stamping, docs/product/staff-locations-rules.md), and a plan chosen but not yet paid gives none of its
 * own.
 */
export function staffSeats(plan: { everPaid: boolean; planSeats: number | null }): number {
  return plan.everPaid && plan.planSeats !== null ? plan.planSeats : TRIAL_STAFF_SEATS
}

export const INVITE_INTENT = 'invite'
export const RESEND_INTENT = 'resend'
export const REMOVE_INTENT = 'remove'
export const TEAM_INTENTS = [INVITE_INTENT, RESEND_INTENT, REMOVE_INTENT] as const
export type TeamIntent = (typeof TEAM_INTENTS)[number]
export const isTeamIntent = (value: unknown): value is TeamIntent =>
  (TEAM_INTENTS as readonly unknown[]).includes(value)

export const InviteSchema = z.object({
  name: z
    .string({ error: TEAM_MESSAGES.name })
    .trim()
    .min(1, { error: TEAM_MESSAGES.name })
    .max(STAFF_NAME_MAX, { error: TEAM_MESSAGES.name })
    // Control characters would show as nothing (or break a mail's header line): refused like a missing name.
    .refine((name) => !/[\p{Cc}\p{Cf}]/u.test(name), { error: TEAM_MESSAGES.name })
    // It goes into a mail from Stampwise to someone else: a name, not a link or an address.
    .refine((name) => /[\p{Cc}\p{Cf}]/u.test(name) || isPlainName(name), { error: PLAIN_NAME_MESSAGE }),
  email: z
    .string({ error: TEAM_MESSAGES.email })
    .trim()
    .max(254, { error: TEAM_MESSAGES.email })
    .pipe(z.email({ error: TEAM_MESSAGES.email })),
})

/** Resend and Remove: the member's id (a hidden field of the list's row). */
export const MemberSchema = z.object({
  staffId: z.string({ error: TEAM_MESSAGES.memberGone }).refine(isUuid, { error: TEAM_MESSAGES.memberGone }),
})

/** The invitee's page: a password under the sign-up policy, twice, and the mailed token. */
export const JoinTeamSchema = z
  .object({
    password: NewPasswordSchema,
    confirmPassword: z.string({ error: 'Passwords do not match' }).max(128),
    token: TokenSchema.shape.token,
  })
  .refine((value) => value.password === value.confirmPassword, {
    path: ['confirmPassword'],
    error: 'Passwords do not match',
  })
