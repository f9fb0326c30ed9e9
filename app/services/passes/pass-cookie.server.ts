import { createCookie } from '@remix-run/node'
import { getEnv } from '#app/server/env.server.ts'
import { getSessionSecrets } from '#app/server/secrets.server.ts'

/**
 * Which pass this device holds on a card: one signed cookie per card, sent only to the join pages (/c/...), so
 * opening the card's join address again leads back to the same pass. The pass pages (/p/...) never see it, which
 * keeps them the same for everyone and cacheable.
 */
const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60

function passCookie(cardId: string) {
  return createCookie(`__pass-${cardId}`, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/c',
    secure: getEnv().APP_URL.startsWith('https://'),
    secrets: getSessionSecrets(),
    maxAge: ONE_YEAR_SECONDS,
  })
}

/** The pass id this device remembers for the card (signature checked), or null. */
export async function readRememberedPassId(request: Request, cardId: string): Promise<string | null> {
  const value: unknown = await passCookie(cardId).parse(request.headers.get('Cookie'))
  return typeof value === 'string' ? value : null
}

export function rememberPassCookie(cardId: string, passId: string): Promise<string> {
  return passCookie(cardId).serialize(passId)
}

/** Clears the device's remembered pass on the card (the pass was removed). */
export function forgetPassCookie(cardId: string): Promise<string> {
  return passCookie(cardId).serialize('', { maxAge: 0 })
}
