import { type Transaction } from 'sequelize'
import { type Audience } from '#app/utils/audience.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { selectRows } from './transaction.server.ts'

/**
 * Scheduled broadcasts (docs/product/automations.md "Scheduled broadcasts"; migration 0013): a draft becomes a
 * 'scheduled' row with its due time and audience, and goes out at that time
 * (app/services/push/scheduled-broadcasts.server.ts) unless the owner cancels it first. Every change of status is
 * conditional on the status it leaves, so a double submit, a cancel racing the release, or two processes releasing one
 * row each change it once.
 */
type Owned = { ownerId: string; cardId: string; notificationId: string }

export type ScheduleOutcome = 'scheduled' | 'not_draft' | 'not_found'

/** Schedules one of the owner's drafts for `scheduledFor`, to `audience`. A draft only: nothing else changes. */
export async function scheduleOwnedDraft({
  ownerId,
  cardId,
  notificationId,
  scheduledFor,
  audience,
}: Owned & { scheduledFor: Date; audience: Audience }): Promise<ScheduleOutcome> {
  if (!isUuid(cardId) || !isUuid(notificationId)) return 'not_found'
  const [row] = await selectRows<{ scheduled: boolean }>(
    `with scheduled as (
       update notifications set status = 'scheduled', scheduled_for = :scheduledFor, audience = :audience
       where id = :notificationId and card_id = :cardId and user_id = :ownerId and kind = 'message'
         and status = 'draft'
       returning id
     )
     select exists (select 1 from scheduled) as scheduled from notifications
     where id = :notificationId and card_id = :cardId and user_id = :ownerId and kind = 'message'`,
    { ownerId, cardId, notificationId, scheduledFor, audience },
  )
  if (!row) return 'not_found'
  return row.scheduled ? 'scheduled' : 'not_draft'
}

export type CancelOutcome = { cancelled: true } | { cancelled: false; status: string } | null

/**
 * Cancels one of the owner's scheduled messages while it is still scheduled; otherwise answers its status (it went
 * out, or was cancelled already). Null: not the owner's.
 */
export async function cancelOwnedScheduled({ ownerId, cardId, notificationId }: Owned): Promise<CancelOutcome> {
  if (!isUuid(cardId) || !isUuid(notificationId)) return null
  const [row] = await selectRows<{ cancelled: boolean; status: string }>(
    `with cancelled as (
       update notifications set status = 'cancelled'
       where id = :notificationId and card_id = :cardId and user_id = :ownerId and kind = 'message'
         and status = 'scheduled'
       returning id
     )
     select exists (select 1 from cancelled) as cancelled, status from notifications
     where id = :notificationId and card_id = :cardId and user_id = :ownerId and kind = 'message'`,
    { ownerId, cardId, notificationId },
  )
  if (!row) return null
  return row.cancelled ? { cancelled: true } : { cancelled: false, status: row.status }
}

export type ScheduledBroadcast = { id: string; title: string; body: string; scheduledFor: Date; audience: Audience }

/** The card's scheduled messages, soonest first: id, title, body, due time and audience. */
export async function listOwnedScheduledBroadcasts({
  ownerId,
  cardId,
}: {
  ownerId: string
  cardId: string
}): Promise<ScheduledBroadcast[]> {
  if (!isUuid(cardId)) return []
  const rows = await selectRows<{ id: string; title: string; body: string; scheduled_for: Date; audience: Audience }>(
    `select n.id, n.title, n.body, n.scheduled_for, n.audience from notifications n
     where n.card_id = :cardId and n.user_id = :ownerId and n.status = 'scheduled' and n.kind = 'message'
     order by n.scheduled_for, n.id`,
    { ownerId, cardId },
  )
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    body: row.body,
    scheduledFor: new Date(row.scheduled_for),
    audience: row.audience,
  }))
}

/*
 * The release's statements below take a notification id alone: the owner scheduled it; the job acts for them.
 */

export type DueBroadcast = { id: string; userId: string; cardId: string; title: string; audience: Audience }

/** Broadcasts due at `now` and still scheduled, oldest due first (the partial index on scheduled_for). */
export async function listDueScheduledBroadcasts(now: Date, limit: number): Promise<DueBroadcast[]> {
  return selectRows<DueBroadcast>(
    `select id, user_id as "userId", card_id as "cardId", title, audience from notifications
     where status = 'scheduled' and scheduled_for <= :now and kind = 'message'
     order by scheduled_for, id limit :limit`,
    { now, limit },
  )
}

/** When the next broadcast is due (null: none scheduled): the in-process timer waits for it. */
export async function nextScheduledBroadcastAt(): Promise<Date | null> {
  const [row] = await selectRows<{ at: Date | null }>(
    `select min(scheduled_for) as at from notifications where status = 'scheduled' and kind = 'message'`,
    {},
  )
  return row?.at ? new Date(row.at) : null
}

/**
 * Locks a due broadcast that is still scheduled, skipping one another process holds: that process is releasing it.
 * Null when it is not (anymore) to release here.
 */
export async function claimScheduledBroadcast(notificationId: string, transaction: Transaction): Promise<boolean> {
  const rows = await selectRows(
    `select id from notifications where id = :notificationId and status = 'scheduled' and kind = 'message'
     for update skip locked`,
    { notificationId },
    transaction,
  )
  return rows.length > 0
}

/**
 * The claimed broadcast goes out now: queued at `now` with the quota it took (`source`), or with none when it
 * reaches nobody (it takes no quota; it finishes at once with 0).
 */
export async function queueScheduledBroadcast(
  {
    notificationId,
    now,
    source,
    recipients,
  }: { notificationId: string; now: Date; source: 'monthly' | 'additional' | null; recipients: number },
  transaction: Transaction,
): Promise<boolean> {
  const rows = await selectRows(
    `update notifications set status = 'queued', queued_at = :now, quota_source = :source, recipients = :recipients,
       counts_toward_quota = :counts
     where id = :notificationId and status = 'scheduled' returning id`,
    { notificationId, now, source, recipients, counts: source !== null },
    transaction,
  )
  return rows.length > 0
}

/** The claimed broadcast is not sent: skipped for `reason` (no quota left, or no access, when it fell due). */
export async function skipScheduledBroadcast(
  { notificationId, reason }: { notificationId: string; reason: 'no_quota' },
  transaction: Transaction,
): Promise<void> {
  await selectRows(
    `update notifications set status = 'skipped', skipped_reason = :reason
     where id = :notificationId and status = 'scheduled' returning id`,
    { notificationId, reason },
    transaction,
  )
}
