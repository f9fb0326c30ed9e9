import { redirect } from '@remix-run/node'
import { consumeRateLimit, RATE_LIMITS } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { keepHolderDetails } from '#app/services/holders/holder-details.server.ts'
import { WELCOME_DELAY_MS } from '#app/utils/automations.ts'
import { scheduleWelcome } from '#models/automatic-messages.server.ts'
import { type ProfileChange } from '#models/holder-profile.server.ts'
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
 * RateLimitedError). The first pass of a card tells its owner; the card's welcome message is scheduled. Answers
 * the redirect to the pass page.
 */
export async function joinCard(request: Request, card: JoinableCard, details?: ProfileChange): Promise<Response> {
  const keepDetails = async (passId: string) => {
    if (details) await keepHolderDetails({ passId, change: details, businessName: card.businessName })
  }
  const remembered = await findRememberedPass(request, card)
  if (remembered) {
    await keepDetails(remembered)
    return redirect(`/p/${remembered}`, 303)
  }
  await consumeRateLimit(RATE_LIMITS.passCreationsPerIp, clientAddress(request))
  const pass = await createPassOnJoinableCard(card.id)
  // The optional details given under 'Get my card' (issue 34), kept with the new pass.
  await keepDetails(pass.id)
  // The card's welcome, if on: a scheduled row the automation schedule sends (one statement, right after the join).
  await scheduleWelcome({ passId: pass.id, delaySeconds: WELCOME_DELAY_MS / 1000 })
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
