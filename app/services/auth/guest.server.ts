import { redirect } from '@remix-run/node'
import { countOwnerCards } from '#models/card.server.ts'
import { getUserEmail, getUserRole } from '#models/user.server.ts'
import { getSession } from './session.server.ts'

/**
 * Where a signed-in user starts: staff at /staff (their cards' scan pages); an owner at the card designer until they
 * have a card, the account home afterwards.
 */
export async function landingPath(userId: string): Promise<'/main' | '/account' | '/staff'> {
  if ((await getUserRole(userId)) === 'staff') return '/staff'
  return (await countOwnerCards(userId)) === 0 ? '/main' : '/account'
}

/**
 * Where a sign-in lands: `asked` (an already checked path, or '' for none), else landingPath. An owner with no card
 * lands on /main also when asked for /account: that is where 'Get started' and every guest sent to log in from the
 * account home come from, and the account home has nothing to show yet.
 */
export async function landingAfterSignIn(userId: string, asked: string): Promise<string> {
  const landing = await landingPath(userId)
  if (!asked) return landing
  const askedPath = new URL(asked, 'http://stampwise.invalid').pathname.replace(/\/+$/, '')
  // Staff asked for an owner page (a link kept from before) would only find 404 there: their start instead.
  if (landing === '/staff') return askedPath === '/staff' || askedPath.startsWith('/staff/') ? asked : landing
  return askedPath === '/account' ? landing : asked
}

/**
 * Guest-only pages send a signed-in owner to /account and staff to /staff. /login (with `toLanding`) sends an owner
 * with no card to /main instead, as the specification's section 2 asks.
 */
export async function requireAnonymous(request: Request, { toLanding = false }: { toLanding?: boolean } = {}) {
  const session = await getSession(request)
  if (!session) return
  if (session.role === 'staff') throw redirect('/staff')
  throw redirect(toLanding ? await landingPath(session.userId) : '/account')
}

/**
 * The signed-in user's address, or null for a guest: for a guest page that shows itself to a signed-in device instead
 * of sending it away (the join page on a shop's tablet where a colleague is signed in says who, and offers to log out).
 */
export async function signedInEmail(request: Request): Promise<string | null> {
  const session = await getSession(request)
  if (!session) return null
  return getUserEmail(session.userId)
}
