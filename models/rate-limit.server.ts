import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * Fixed-window attempt counters, one row a key (app/services/auth/rate-limit.server.ts names the keys and the
 * limits). In the database so counts hold across processes and restarts.
 */

/**
 * Counts one attempt on `key` and returns the window's count with it, in one statement, so parallel requests each
 * see their own count. An expired window starts again at 1 for `windowSeconds`.
 */
export async function countAttempt(
  key: string,
  windowSeconds: number,
): Promise<{ points: number; retryAfterSeconds: number } | null> {
  const [row] = await getSequelize().query<{ points: number; retry_after: number }>(
    `insert into rate_limit_counters as c (key, points, expires_at)
       values (:key, 1, now() + make_interval(secs => :window))
     on conflict (key) do update set
       points = case when c.expires_at <= now() then 1 else c.points + 1 end,
       expires_at = case when c.expires_at <= now() then excluded.expires_at else c.expires_at end
     returning points, extract(epoch from (expires_at - now()))::float8 as retry_after`,
    { replacements: { key, window: windowSeconds }, type: QueryTypes.SELECT },
  )
  return row ? { points: row.points, retryAfterSeconds: row.retry_after } : null
}

/** Forgets the key's count (a correct password clears the failures counted before it was checked). */
export async function deleteAttemptCounter(key: string) {
  await getSequelize().query('delete from rate_limit_counters where key = :key', { replacements: { key } })
}

export async function deleteExpiredAttemptCounters() {
  await getSequelize().query('delete from rate_limit_counters where expires_at <= now()')
}
