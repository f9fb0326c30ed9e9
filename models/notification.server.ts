import { getSequelize } from '#app/utils/db.server.ts'

/**
 * Push messages that count toward the owner's monthly quota, sent (queued) since a moment. A message counts once,
 * however many holders receive it (DECISIONS.md); automatic stamp and reward pushes do not count.
 */
export async function countQuotaPushesSince(userId: string, since: Date): Promise<number> {
  const [rows] = (await getSequelize().query(
    `select count(*)::int as count from notifications
     where user_id = :userId and counts_toward_quota and queued_at >= :since`,
    { replacements: { userId, since } },
  )) as [{ count: number }[], unknown]
  return rows[0]!.count
}
