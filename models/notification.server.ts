import { QueryTypes, type Transaction } from 'sequelize'
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
            (select count(*) from deliveries d
              where d.notification_id = n.id and d.status in ('failed', 'gone'))::int as failed,
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
export async function createDraftNotification({
  ownerId,
  cardId,
  input,
}: {
  ownerId: string
  cardId: string
  input: DraftInput
}): Promise<{ id: string } | null> {
  if (!isUuid(cardId)) return null
  const [rows] = (await getSequelize().query(
    `insert into notifications (card_id, user_id, template_id, title, body, link)
     select c.id, c.user_id,
            (select t.id from templates t where t.id = :templateId and (t.user_id is null or t.user_id = :ownerId)),
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
export async function updateDraftNotification({
  ownerId,
  cardId,
  notificationId,
  input,
}: {
  ownerId: string
  cardId: string
  notificationId: string
  input: DraftInput
}): Promise<boolean> {
  if (!isUuid(cardId) || !isUuid(notificationId)) return false
  const [rows] = (await getSequelize().query(
    `update notifications set title = :title, body = :body, link = :link
     where id = :notificationId and card_id = :cardId and user_id = :ownerId and status = 'draft' returning id`,
    {
      replacements: { ownerId, cardId, notificationId, title: input.title, body: input.body, link: input.link ?? null },
    },
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
export async function getOwnedNotification({
  ownerId,
  cardId,
  notificationId,
}: {
  ownerId: string
  cardId: string
  notificationId: string
}): Promise<OwnedNotification | null> {
  if (!isUuid(cardId) || !isUuid(notificationId)) return null
  const [rows] = (await getSequelize().query(
    `select n.id, n.kind, n.title, n.body, n.link, n.status, n.quota_source, n.created_at, n.queued_at, n.finished_at,
            n.recipients,
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

/**
 * Queues one of the owner's drafts with the quota it took (inside the send's transaction, on the owner's locked
 * subscription row); false when it is no longer a draft: sent meanwhile by another request, which took the quota.
 */
export async function queueOwnedDraft(
  {
    ownerId,
    cardId,
    notificationId,
    now,
    source,
    recipients,
  }: {
    ownerId: string
    cardId: string
    notificationId: string
    now: Date
    source: 'monthly' | 'additional'
    recipients: number
  },
  transaction?: Transaction,
): Promise<boolean> {
  const [queued] = (await getSequelize().query(
    `update notifications set status = 'queued', queued_at = :now, quota_source = :source, recipients = :recipients
     where id = :notificationId and user_id = :ownerId and card_id = :cardId and status = 'draft' returning id`,
    { replacements: { now, source, recipients, notificationId, ownerId, cardId }, transaction },
  )) as [{ id: string }[], unknown]
  return queued.length > 0
}

/*
 * The delivery jobs' statements below take a notification id alone: a job acts on a message its owner already
 * queued (or a stamp push the owner's stamping queued), so no owner is there to check.
 */

/** The message's status, its row locked until the transaction ends (so a second preparation waits, then no-ops). */
export async function lockNotificationStatus(notificationId: string, transaction: Transaction): Promise<string | null> {
  const [message] = await getSequelize().query<{ status: string }>(
    `select status from notifications where id = :notificationId for update`,
    { replacements: { notificationId }, type: QueryTypes.SELECT, transaction },
  )
  return message?.status ?? null
}

/** The queued message's deliveries exist: it is sending to `recipients` devices. */
export async function markNotificationSending(notificationId: string, recipients: number, transaction: Transaction) {
  await getSequelize().query(
    `update notifications set status = 'sending', recipients = :count where id = :notificationId`,
    { replacements: { notificationId, count: recipients }, transaction },
  )
}

export type MessageContent = { id: string; title: string; body: string; link: string | null; cardVersion: string }

/** What the holder's device shows: the message and its card's version (the icon's address changes with the card). */
export async function getMessageContent(notificationId: string): Promise<MessageContent | null> {
  const [row] = await getSequelize().query<MessageContent>(
    `select n.id, n.title, n.body, n.link, round(extract(epoch from c.updated_at) * 1000)::bigint::text as "cardVersion"
     from notifications n join cards c on c.id = n.card_id where n.id = :notificationId`,
    { replacements: { notificationId }, type: QueryTypes.SELECT },
  )
  return row ?? null
}

export type FinishedNotification = {
  user_id: string
  card_id: string
  kind: string
  title: string
  sent: number
  failed: number
}

/**
 * Marks the sending message done once no delivery is pending, in one statement, so only one process finishes it;
 * answers the message with its counts then, else null.
 */
export async function finishNotificationIfDelivered(notificationId: string): Promise<FinishedNotification | null> {
  const [finished] = await getSequelize().query<FinishedNotification>(
    `with done as (
       update notifications n set status = 'done', finished_at = now()
       where n.id = :notificationId and n.status = 'sending'
         and not exists (select 1 from deliveries d where d.notification_id = n.id and d.status = 'pending')
       returning n.id, n.user_id, n.card_id, n.kind, n.title
     )
     select done.user_id, done.card_id, done.kind, done.title,
            (select count(*)::int from deliveries d where d.notification_id = done.id and d.status = 'sent') as sent,
            (select count(*)::int from deliveries d
              where d.notification_id = done.id and d.status in ('failed', 'gone')) as failed
     from done`,
    { replacements: { notificationId }, type: QueryTypes.SELECT },
  )
  return finished ?? null
}

/** Ids of messages queued or left mid-send (a restart, a crash), oldest first. */
export async function listUnfinishedNotificationIds(limit: number): Promise<string[]> {
  const rows = await getSequelize().query<{ id: string }>(
    `select id from notifications where status in ('queued', 'sending') order by queued_at nulls first limit :limit`,
    { replacements: { limit }, type: QueryTypes.SELECT },
  )
  return rows.map((row) => row.id)
}
