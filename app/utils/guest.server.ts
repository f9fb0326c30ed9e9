import { redirect } from '@remix-run/node'
import { countOwnerCards } from '#models/card.server.ts'
import { getUserId } from './session.server.ts'

/** Where a signed-in owner starts: the card designer until they have a card, the account home afterwards. */
export async function landingPath(userId: string): Promise<'/main' | '/account'> {
  return (await countOwnerCards(userId)) === 0 ? '/main' : '/account'
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
