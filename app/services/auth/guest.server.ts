import { redirect } from '@remix-run/node'
import { countOwnerCards } from '#models/card.server.ts'
import { getUserId } from './session.server.ts'

/** Where a signed-in owner starts: the card designer until they have a card, the account home afterwards. */
export async function landingPath(userId: string): Promise<'/main' | '/account'> {
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
  return askedPath === '/account' ? landing : asked
}

/**
 * Guest-only pages send a signed-in owner to /account. /login (with `toLanding`) sends an owner with no card to
 * /main instead, as the specification's section 2 asks.
 */
export async function requireAnonymous(request: Request, { toLanding = false }: { toLanding?: boolean } = {}) {
  const userId = await getUserId(request)
  if (!userId) return
  throw redirect(toLanding ? await landingPath(userId) : '/account')
}
