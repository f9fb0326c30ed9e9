import { type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from './card.server.ts'

/**
 * Push messages that count toward the owner's monthly quota, sent (queued) since a moment. A message counts once,
 * however many holders receive it (DECISIONS.md); automatic stamp and reward pushes do not count.
 */
export async function countQuotaPushesSince(userId: string, since: Date, transaction?: Transaction): Promise<number> {
  const [rows] = (await getSequelize().query(
    `select count(*)::int as count from notifications
     where user_id = :userId and counts_toward_quota and queued_at >= :since`,
    { replacements: { userId, since }, transaction },
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


export type DraftInput = { title: string; body: string; link?: string | null; templateId?: string | null }

/** A draft message on one of the owner's cards (the composer's save); null when the card is not theirs. */
export async function createDraftNotification({ ownerId, cardId, input }: { ownerId: string; cardId: string; input: DraftInput }): Promise<{ id: string } | null> {
  if (!isUuid(cardId)) return null
  const [rows] = (await getSequelize().query(
    `insert into notifications (card_id, user_id, template_id, title, body, link)
     select c.id, c.user_id, (select t.id from templates t where t.id = :templateId and (t.user_id is null or t.user_id = :ownerId)),
            :title, :body, :link
     from cards c where c.id = :cardId and c.user_id = :ownerId
     returning id`,
    {
      replacements: {
        ownerId,
        cardId,
        title: input.title,
        body: input.body,
        link: input.link ?? null,
        templateId: isUuid(input.templateId ?? undefined) ? input.templateId : null,
      },
    },
  )) as [{ id: string }[], unknown]
  return rows[0] ?? null
}

/** Changes a draft (back from the confirm page to the composer); false when it is not the owner's draft. */
export async function updateDraftNotification({ ownerId, cardId, notificationId, input }: { ownerId: string; cardId: string; notificationId: string; input: DraftInput }): Promise<boolean> {
  if (!isUuid(cardId) || !isUuid(notificationId)) return false
  const [rows] = (await getSequelize().query(
    `update notifications set title = :title, body = :body, link = :link
     where id = :notificationId and card_id = :cardId and user_id = :ownerId and status = 'draft' returning id`,
    { replacements: { ownerId, cardId, notificationId, title: input.title, body: input.body, link: input.link ?? null } },
  )) as [{ id: string }[], unknown]
  return rows.length > 0
}

export type DeliveryProgress = { total: number; sent: number; failed: number; pending: number; percent: number }

export type OwnedNotification = {
  id: string
  kind: 'message' | 'stamp' | 'reward'
  title: string
  body: string
  link: string | null
  status: 'draft' | 'queued' | 'sending' | 'done' | 'failed'
  quotaSource: 'monthly' | 'additional' | null
  createdAt: Date
  queuedAt: Date | null
  finishedAt: Date | null
  progress: DeliveryProgress
}

/** One of the owner's messages on the card, with its delivery counts; null for anyone else's (a 404). */
export async function getOwnedNotification({ ownerId, cardId, notificationId }: { ownerId: string; cardId: string; notificationId: string }): Promise<OwnedNotification | null> {
  if (!isUuid(cardId) || !isUuid(notificationId)) return null
  const [rows] = (await getSequelize().query(
    `select n.id, n.kind, n.title, n.body, n.link, n.status, n.quota_source, n.created_at, n.queued_at, n.finished_at, n.recipients,
            count(d.id)::int as total,
            count(d.id) filter (where d.status = 'sent')::int as sent,
            count(d.id) filter (where d.status in ('failed', 'gone'))::int as failed,
            count(d.id) filter (where d.status = 'pending')::int as pending
     from notifications n left join deliveries d on d.notification_id = n.id
     where n.id = :notificationId and n.card_id = :cardId and n.user_id = :ownerId
     group by n.id`,
    { replacements: { ownerId, cardId, notificationId } },
  )) as [Record<string, unknown>[], unknown]
  const row = rows[0]
  if (!row) return null
  // Before the deliveries exist (queued), the whole audience is pending.
  const total = row.status === 'queued' ? Number(row.recipients ?? 0) : (row.total as number)
  const pending = row.status === 'queued' ? total : (row.pending as number)
  const finished = (row.sent as number) + (row.failed as number)
  return {
    id: row.id as string,
    kind: row.kind as OwnedNotification['kind'],
    title: row.title as string,
    body: row.body as string,
    link: (row.link as string | null) ?? null,
    status: row.status as OwnedNotification['status'],
    quotaSource: (row.quota_source as OwnedNotification['quotaSource']) ?? null,
    createdAt: new Date(row.created_at as string),
    queuedAt: row.queued_at ? new Date(row.queued_at as string) : null,
    finishedAt: row.finished_at ? new Date(row.finished_at as string) : null,
    progress: {
      total,
      sent: row.sent as number,
      failed: row.failed as number,
      pending,
      percent: row.status === 'done' ? 100 : total === 0 ? 0 : Math.floor((finished / total) * 100),
    },
  }
}
