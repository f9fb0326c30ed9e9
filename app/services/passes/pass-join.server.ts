import { redirect } from '@remix-run/node'
import { consumeRateLimit, RATE_LIMITS } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { raiseNotice } from '#models/notice.server.ts'
import { createPassOnJoinableCard, isPassOfJoinableCard, type JoinableCard } from '#models/pass.server.ts'
import { readRememberedPassId, rememberPassCookie } from './pass-cookie.server.ts'

/** The pass this device already holds on the card, if it still exists. */
export async function findRememberedPass(request: Request, card: Pick<JoinableCard, 'id'>): Promise<string | null> {
  const passId = await readRememberedPassId(request, card.id)
  return passId && (await isPassOfJoinableCard(passId, card.id)) ? passId : null
}

/**
 * "Get my card": the device's existing pass, or a new one (counted against the address's limit; throws
 * RateLimitedError). The first pass of a card tells its owner. Answers the redirect to the pass page.
 */
export async function joinCard(request: Request, card: JoinableCard): Promise<Response> {
  const remembered = await findRememberedPass(request, card)
  if (remembered) return redirect(`/p/${remembered}`, 303)
  await consumeRateLimit(RATE_LIMITS.passCreationsPerIp, clientAddress(request))
  const pass = await createPassOnJoinableCard(card.id)
  if (pass.first) {
    await raiseNotice({
      userId: card.userId,
      kind: 'first_holder',
      message: `Your first holder joined ${card.title || 'your card'}`,
      link: `/account/${card.id}`,
      dedupeKey: `first-holder:${card.id}`,
    })
  }
  return redirect(`/p/${pass.id}`, {
    status: 303,
    headers: { 'Set-Cookie': await rememberPassCookie(card.id, pass.id) },
  })
}
