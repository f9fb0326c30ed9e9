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

export type NotificationHistoryItem = {
  id: string
  kind: string
  title: string
  body: string
  status: string
  createdAt: Date
  queuedAt: Date | null
  sent: number
  failed: number
  pending: number
}

/** A card's messages, newest first, with their delivery counts (one query per page). */
export async function listCardNotifications(
  { cardId, userId }: { cardId: string; userId: string },
  { page, perPage = 20 }: { page: number; perPage?: number },
): Promise<{ items: NotificationHistoryItem[]; total: number }> {
  const [rows] = (await getSequelize().query(
    `select n.id, n.kind, n.title, n.body, n.status, n.created_at, n.queued_at, count(*) over () as total,
            (select count(*) from deliveries d where d.notification_id = n.id and d.status = 'sent')::int as sent,
            (select count(*) from deliveries d where d.notification_id = n.id and d.status in ('failed', 'gone'))::int as failed,
            (select count(*) from deliveries d where d.notification_id = n.id and d.status = 'pending')::int as pending
     from notifications n
     where n.card_id = :cardId and n.user_id = :userId and n.status <> 'draft'
     order by coalesce(n.queued_at, n.created_at) desc, n.id
     limit :limit offset :offset`,
    { replacements: { cardId, userId, limit: perPage, offset: (page - 1) * perPage } },
  )) as [Record<string, unknown>[], unknown]
  return {
    total: rows.length ? Number(rows[0]!.total) : 0,
    items: rows.map((row) => ({
      id: row.id as string,
      kind: row.kind as string,
      title: row.title as string,
      body: row.body as string,
      status: row.status as string,
      createdAt: new Date(row.created_at as string),
      queuedAt: row.queued_at ? new Date(row.queued_at as string) : null,
      sent: row.sent as number,
      failed: row.failed as number,
      pending: row.pending as number,
    })),
  }
}
