import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { type Audience } from '#app/utils/audience.ts'
import {
  DELIVERY_CHANNELS,
  sumChannels,
  type ChannelBreakdown,
  type ChannelCounts,
  type DeliveryChannel,
} from '#app/utils/push-channels.ts'
import { isUuid } from './card.server.ts'
import { AUDIENCE_OF_MESSAGE, type MessageTarget } from './holder-audience.server.ts'

/**
 * Push messages that count toward the owner's monthly quota, sent (queued) since a moment. A message counts once,
 * however many holders receive it (docs/product/plans-and-limits.md); automatic stamp and reward pushes do not count.
 */
export async function countQuotaPushesSince(userId: string, since: Date, transaction?: Transaction): Promise<number> {
  const [rows] = (await getSequelize().query(
    `select count(*)::int as count from notifications
     where user_id = :userId and counts_toward_quota and queued_at >= :since`,
    { replacements: { userId, since }, transaction },
  )) as [{ count: number }[], unknown]
  return rows[0]!.count
}

/**
 * Each channel's rows of a message (app/utils/push-channels.ts names the channels). In every count 'gone' (the
 * device left) is failed, as the owner reads it.
 */
const CHANNEL_TABLES: Record<DeliveryChannel, { table: string; prefix: string }> = {
  web: { table: 'deliveries', prefix: 'web' },
  appleWallet: { table: 'apple_pushes', prefix: 'apple' },
  googleWallet: { table: 'google_wallet_updates', prefix: 'google' },
}

/** Lateral joins giving `{prefix}_sent`, `{prefix}_failed`, `{prefix}_pending` for the message `n.id`. */
const CHANNEL_COUNTS = DELIVERY_CHANNELS.map((channel) => {
  const { table, prefix } = CHANNEL_TABLES[channel]
  return `cross join lateral (
      select count(*) filter (where x.status = 'sent')::int as ${prefix}_sent,
             count(*) filter (where x.status in ('failed', 'gone'))::int as ${prefix}_failed,
             count(*) filter (where x.status = 'pending')::int as ${prefix}_pending${
               channel === 'googleWallet'
                 ? `,\n             count(*) filter (where x.status = 'sent' and not x.notified)::int as ${prefix}_quiet`
                 : ''
             }
      from ${table} x where x.notification_id = n.id) ${prefix}`
}).join('\n')
const CHANNEL_COLUMNS = DELIVERY_CHANNELS.map((channel) => `${CHANNEL_TABLES[channel].prefix}.*`).join(', ')

const tables = DELIVERY_CHANNELS.map((channel) => CHANNEL_TABLES[channel].table)
/** No row of the message `n` pending on any channel. */
const NOTHING_PENDING = tables
  .map((table) => `and not exists (select 1 from ${table} x where x.notification_id = n.id and x.status = 'pending')`)
  .join('\n')
/** The rows of the message `done` in these statuses, over every channel. */
const countOverChannels = (statuses: string) =>
  tables
    .map(
      (table) =>
        `(select count(*)::int from ${table} x where x.notification_id = done.id and x.status in (${statuses}))`,
    )
    .join(' + ')

function channelsOf(row: Record<string, unknown>): ChannelBreakdown {
  const entries = DELIVERY_CHANNELS.map((channel) => {
    const { prefix } = CHANNEL_TABLES[channel]
    const counts: ChannelCounts = {
      sent: Number(row[`${prefix}_sent`] ?? 0),
      failed: Number(row[`${prefix}_failed`] ?? 0),
      pending: Number(row[`${prefix}_pending`] ?? 0),
      ...(row[`${prefix}_quiet`] ? { quiet: Number(row[`${prefix}_quiet`]) } : {}),
    }
    return [channel, counts] as const
  })
  return Object.fromEntries(entries) as ChannelBreakdown
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
  /** The same counts per channel; the fields above are their sums. */
  channels: ChannelBreakdown
  /** Why a scheduled message was not sent (status 'skipped'), e.g. 'no_quota'; else null. */
  skippedReason: string | null
  /** When a scheduled message was due (kept after it went, was cancelled or skipped); else null. */
  scheduledFor: Date | null
}

/**
 * The owner's messages to a card's holders (broadcasts), newest first: the sent ones, and the scheduled ones that
 * were cancelled or not sent, not the drafts nor those still waiting (the scheduled list has them). One holder's
 * stamp, reward and automatic pushes are counted per day apart (models/automatic-history.server.ts).
 */
const HISTORY_STATUSES = `('queued', 'sending', 'done', 'failed', 'skipped', 'cancelled')`

/** A card's messages, newest first, with their delivery counts per channel (one query per page). */
export async function listCardNotifications(
  { cardId, userId }: { cardId: string; userId: string },
  { page, perPage = 20 }: { page: number; perPage?: number },
): Promise<{ items: NotificationHistoryItem[]; total: number }> {
  const [rows] = (await getSequelize().query(
    `select n.id, n.kind, n.title, n.body, n.status, n.created_at, n.queued_at, n.skipped_reason, n.scheduled_for,
            count(*) over () as total, ${CHANNEL_COLUMNS}
     from notifications n
     ${CHANNEL_COUNTS}
     where n.card_id = :cardId and n.user_id = :userId and n.kind = 'message' and n.status in ${HISTORY_STATUSES}
     order by coalesce(n.queued_at, n.created_at) desc, n.id
     limit :limit offset :offset`,
    { replacements: { cardId, userId, limit: perPage, offset: (page - 1) * perPage } },
  )) as [Record<string, unknown>[], unknown]
  return {
    total: rows.length ? Number(rows[0]!.total) : 0,
    items: rows.map((row) => {
      const channels = channelsOf(row)
      return {
        id: row.id as string,
        kind: row.kind as string,
        title: row.title as string,
        body: row.body as string,
        status: row.status as string,
        createdAt: new Date(row.created_at as string),
        queuedAt: row.queued_at ? new Date(row.queued_at as string) : null,
        ...sumChannels(channels),
        channels,
        skippedReason: (row.skipped_reason as string | null) ?? null,
        scheduledFor: row.scheduled_for ? new Date(row.scheduled_for as string) : null,
      }
    }),
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

export type DeliveryProgress = {
  total: number
  sent: number
  failed: number
  pending: number
  percent: number
  /** The same counts per channel; the fields above are their sums. */
  channels: ChannelBreakdown
}

export type OwnedNotification = {
  id: string
  kind: 'message' | 'stamp' | 'reward' | 'welcome' | 'one_to_go' | 'reward_waiting' | 'we_miss_you'
  title: string
  body: string
  link: string | null
  status: 'draft' | 'scheduled' | 'queued' | 'sending' | 'done' | 'failed' | 'cancelled' | 'skipped'
  quotaSource: 'monthly' | 'additional' | null
  /** Who a broadcast goes to (stored when it is sent or scheduled; 'all' for a draft and a holder's message). */
  audience: Audience
  /** When a scheduled message goes out (kept afterwards as the time it was due). */
  scheduledFor: Date | null
  skippedReason: string | null
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
            n.recipients, n.audience, n.scheduled_for, n.skipped_reason, ${CHANNEL_COLUMNS},
            case when n.status = 'queued' and n.kind = 'message' and n.pass_id is null then (
              select count(distinct r.device_id)::int from passes p join cards c on c.id = p.card_id
                join apple_registrations r on r.pass_id = p.id
              where p.card_id = n.card_id and ${AUDIENCE_OF_MESSAGE}
            ) end as apple_audience,
            case when n.status = 'queued' and n.kind = 'message' and n.pass_id is null then (
              select count(*)::int from passes p join cards c on c.id = p.card_id
                join google_wallet_objects o on o.pass_id = p.id
              where p.card_id = n.card_id and o.state = 'active' and ${AUDIENCE_OF_MESSAGE}
            ) end as google_audience
     from notifications n
     ${CHANNEL_COUNTS}
     where n.id = :notificationId and n.card_id = :cardId and n.user_id = :ownerId`,
    { replacements: { ownerId, cardId, notificationId } },
  )) as [Record<string, unknown>[], unknown]
  const row = rows[0]
  if (!row) return null
  // Before the deliveries exist (queued), the whole audience is pending: the stored reach, split by today's Apple
  // Wallet devices and Google Wallet passes of its audience (the split is not stored; the rows, moments later, are
  // exact).
  let channels = channelsOf(row)
  if (row.status === 'queued') {
    const recipients = Number(row.recipients ?? 0)
    const apple = Math.min(recipients, Number(row.apple_audience ?? 0))
    const google = Math.min(recipients - apple, Number(row.google_audience ?? 0))
    channels = {
      web: { sent: 0, failed: 0, pending: recipients - apple - google },
      appleWallet: { sent: 0, failed: 0, pending: apple },
      googleWallet: { sent: 0, failed: 0, pending: google },
    }
  }
  const { sent, failed, pending } = sumChannels(channels)
  const total = sent + failed + pending
  const finished = sent + failed
  return {
    id: row.id as string,
    kind: row.kind as OwnedNotification['kind'],
    title: row.title as string,
    body: row.body as string,
    link: (row.link as string | null) ?? null,
    status: row.status as OwnedNotification['status'],
    quotaSource: (row.quota_source as OwnedNotification['quotaSource']) ?? null,
    audience: row.audience as Audience,
    scheduledFor: row.scheduled_for ? new Date(row.scheduled_for as string) : null,
    skippedReason: (row.skipped_reason as string | null) ?? null,
    createdAt: new Date(row.created_at as string),
    queuedAt: row.queued_at ? new Date(row.queued_at as string) : null,
    finishedAt: row.finished_at ? new Date(row.finished_at as string) : null,
    progress: {
      total,
      sent,
      failed,
      pending,
      percent: row.status === 'done' ? 100 : total === 0 ? 0 : Math.floor((finished / total) * 100),
      channels,
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
    audience = 'all',
  }: {
    ownerId: string
    cardId: string
    notificationId: string
    now: Date
    source: 'monthly' | 'additional'
    /** Devices it will reach; null when not counted yet (setQueuedRecipients, or the deliveries, tell). */
    recipients: number | null
    audience?: Audience
  },
  transaction?: Transaction,
): Promise<boolean> {
  const [queued] = (await getSequelize().query(
    `update notifications set status = 'queued', queued_at = :now, quota_source = :source, recipients = :recipients,
       audience = :audience
     where id = :notificationId and user_id = :ownerId and card_id = :cardId and status = 'draft' returning id`,
    { replacements: { now, source, recipients, audience, notificationId, ownerId, cardId }, transaction },
  )) as [{ id: string }[], unknown]
  return queued.length > 0
}

/**
 * The devices a queued message will reach, counted after it was queued (the Send starts it before counting), unless
 * its deliveries said so already (markNotificationSending).
 */
export async function setQueuedRecipients(notificationId: string, recipients: number) {
  await getSequelize().query(
    `update notifications set recipients = :recipients
     where id = :notificationId and status = 'queued' and recipients is null`,
    { replacements: { notificationId, recipients } },
  )
}

/*
 * The delivery jobs' statements below take a notification id alone: a job acts on a message its owner already
 * queued (or a stamp push the owner's stamping queued), so no owner is there to check.
 */

/**
 * The message's status, kind and target (one holder's pass, or an audience of the card's holders), its row locked
 * until the transaction ends (so a second preparation waits, then no-ops). `toAllHolders`: an owner's broadcast.
 */
export async function lockNotificationStatus(
  notificationId: string,
  transaction: Transaction,
): Promise<{ status: string; kind: string; toAllHolders: boolean; target: MessageTarget } | null> {
  const [message] = await getSequelize().query<{
    status: string
    kind: string
    card_id: string
    pass_id: string | null
    audience: Audience
  }>(`select status, kind, card_id, pass_id, audience from notifications where id = :notificationId for update`, {
    replacements: { notificationId },
    type: QueryTypes.SELECT,
    transaction,
  })
  if (!message) return null
  return {
    status: message.status,
    kind: message.kind,
    toAllHolders: message.kind === 'message' && message.pass_id === null,
    target: { cardId: message.card_id, passId: message.pass_id, audience: message.audience },
  }
}

/** The queued message's deliveries (and Apple Wallet pushes) exist: it is sending to `recipients` devices. */
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
 * Marks the sending message done once nothing is pending on any channel (web push deliveries, Apple Wallet pushes),
 * in one statement, so only one process finishes it; answers the message with its counts over every channel then,
 * else null. Each channel's sender calls it after storing outcomes of rows that name a message.
 */
export async function finishNotificationIfDelivered(notificationId: string): Promise<FinishedNotification | null> {
  const [finished] = await getSequelize().query<FinishedNotification>(
    `with done as (
       update notifications n set status = 'done', finished_at = now()
       where n.id = :notificationId and n.status = 'sending'
         ${NOTHING_PENDING}
       returning n.id, n.user_id, n.card_id, n.kind, n.title
     )
     select done.user_id, done.card_id, done.kind, done.title, ${countOverChannels("'sent'")} as sent,
            ${countOverChannels("'failed', 'gone'")} as failed
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
