import { QueryTypes } from 'sequelize'
import { hashToken } from '#models/session.server.ts'
import { getSequelize } from '#app/server/db.server.ts'
import { readSessionToken } from '#app/services/auth/session.server.ts'

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
  const rows = await getSequelize().query<{ user_id: string; content_version: string; updated_at: Date }>(
    `select u.id as user_id, u.content_version, u.updated_at
     from sessions se join users u on u.id = se.user_id
     where se.token_hash = :hash and se.expires_at > now() and u.disabled_at is null`,
    { replacements: { hash: hashToken(token) }, type: QueryTypes.SELECT },
  )
  const row = rows[0]
  if (!row) return null
  const bucket = Math.floor(Date.now() / TIME_BUCKET_MS)
  return { userId: row.user_id, version: `${row.content_version}|${new Date(row.updated_at).getTime()}|${bucket}` }
}
