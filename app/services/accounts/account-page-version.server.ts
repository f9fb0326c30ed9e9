import { readSessionToken } from '#app/services/auth/session.server.ts'
import { findSessionCardPageVersion, findSessionUserVersion } from '#models/session.server.ts'

// Plan state and "this month" depend on the clock: a render is reused for at most this long.
const TIME_BUCKET_MS = 15_000

/**
 * What /account shows, as a version, with the session checked in the same query. `users.content_version` is
 * moved by database triggers on every change to the owner's cards, holders, stamps, notices and subscription
 * (migration 0004), `users.updated_at` by any change to the user (e-mail, logo); the time bucket covers what the
 * clock changes (days of trial left, this month). tests/integration/account-page-cache.test.ts changes each one.
 */
export async function accountPageVersion(cookieHeader: string): Promise<{ userId: string; version: string } | null> {
  const token = await readSessionToken(cookieHeader)
  if (!token) return null
  const row = await findSessionUserVersion(token)
  if (!row) return null
  const bucket = Math.floor(Date.now() / TIME_BUCKET_MS)
  return { userId: row.userId, version: `${row.contentVersion}|${row.updatedAt.getTime()}|${bucket}` }
}

/**
 * What a card's page (/account/{cardId}, its default range and no filter) shows, as a version: the account's, plus
 * the staff the people filter lists. Its insights come from stamp events, which move content_version, and from the
 * clock (the range ends now), which the time bucket covers. tests/integration/card-page-cache.test.ts changes each.
 */
export async function cardPageVersion(
  cookieHeader: string,
  cardId: string,
): Promise<{ userId: string; version: string } | null> {
  const token = await readSessionToken(cookieHeader)
  if (!token) return null
  const row = await findSessionCardPageVersion(token, cardId)
  if (!row) return null
  const bucket = Math.floor(Date.now() / TIME_BUCKET_MS)
  return {
    userId: row.userId,
    version: `${row.contentVersion}|${row.updatedAt.getTime()}|${row.untrackedVersion}|${bucket}`,
  }
}
