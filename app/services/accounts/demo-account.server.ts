import { hashPassword } from '#app/services/auth/password.server.ts'
import { createReadyCard } from '#models/ready-card.server.ts'
import { acceptInvitation, insertInvitedStaff } from '#models/staff.server.ts'
import { startTrial } from '#models/subscription.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import { countUsers, createConfirmedUserUnlessTaken } from '#models/user.server.ts'

export const DEMO_EMAIL = 'demo@stampwise.test'
export const DEMO_PASSWORD = 'Stampwise1!'
/** The demo owner's staff member (issue 20), to try the counter at /staff: same password, same loopback rule. */
export const DEMO_STAFF_EMAIL = 'staff@stampwise.test'

const DEMO_CARD = {
  businessName: 'Corner Coffee',
  title: 'Coffee card',
  stampsRequired: 8,
  backgroundColor: '#3b2416',
  textColor: '#fdf3e7',
  stampIcon: 'coffee',
  reward: 'A free coffee of your choice',
  terms: 'One stamp per hot drink. Not valid with other offers.',
}

/**
 * Outside production, an empty database gets one confirmed owner on a trial with one card and one staff member, so a
 * newcomer can sign in and look around at once. Returns the credentials when it created them (the server prints
 * them).
 */
export async function ensureDemoAccount(): Promise<
  { email: string; staffEmail: string; password: string } | undefined
> {
  return withTransaction(async (transaction) => {
    if ((await countUsers(transaction)) > 0) return undefined
    const passwordHash = await hashPassword(DEMO_PASSWORD)
    // Several processes may start on one empty database at once: only the first one creates the account.
    const user = await createConfirmedUserUnlessTaken({ email: DEMO_EMAIL, passwordHash }, transaction)
    if (!user) return undefined
    await startTrial(user.id, transaction, 'demo account created')
    const card = { userId: user.id, slug: 'demo-corner-coffee', premade: false, design: DEMO_CARD }
    await createReadyCard(card, transaction)
    const staffId = await insertInvitedStaff(
      { ownerId: user.id, name: 'Sam', email: DEMO_STAFF_EMAIL, expiresAt: new Date() },
      transaction,
    )
    await acceptInvitation({ staffId, passwordHash }, transaction)
    return { email: DEMO_EMAIL, staffEmail: DEMO_STAFF_EMAIL, password: DEMO_PASSWORD }
  })
}
