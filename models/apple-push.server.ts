import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * The `apple_pushes` rows: one APNs push to one device (migration 0010), queued by the triggers of a stamp or a
 * design change, by a message, or by a voided pass. The jobs (app/services/wallet/apple-push-delivery.server.ts)
 * claim them with a lease (`for update skip locked`: two processes never claim the same row) and write each outcome,
 * as web push's deliveries do (models/delivery.server.ts).
 */

export type ClaimedApplePush = {
  id: string
  push_token: string
  device_id: string
  notification_id: string | null
  attempts: number
}

/** Claims up to `limit` due, unleased pending pushes for `leaseSeconds`; each claim counts as an attempt. */
export async function claimApplePushes(limit: number, leaseSeconds: number): Promise<ClaimedApplePush[]> {
  return getSequelize().query<ClaimedApplePush>(
    `with picked as (
       select id from apple_pushes
       where status = 'pending' and device_id is not null
         and (lease_until is null or lease_until < now()) and (next_attempt_at is null or next_attempt_at <= now())
       order by id limit :limit
       for update skip locked
     )
     update apple_pushes a set attempts = a.attempts + 1, lease_until = now() + make_interval(secs => :lease)
     from picked where a.id = picked.id
     returning a.id::text as id, a.push_token, a.device_id, a.notification_id, a.attempts`,
    { replacements: { limit, lease: leaseSeconds }, type: QueryTypes.SELECT },
  )
}

/**
 * Pending pushes whose device is gone (APNs said 410 for another push, or it was pruned) can never be sent: marked
 * gone, answering the messages they belonged to, so those can finish.
 */
export async function markOrphanApplePushesGone(): Promise<string[]> {
  const rows = await getSequelize().query<{ notification_id: string | null }>(
    `update apple_pushes set status = 'gone', last_error = 'unregistered', lease_until = null
     where status = 'pending' and device_id is null returning notification_id`,
    { type: QueryTypes.SELECT },
  )
  return [...new Set(rows.flatMap((row) => (row.notification_id ? [row.notification_id] : [])))]
}

/** How long until the next pending push can be claimed (a retry's time, or a lease's end); null: none pending. */
export async function nextApplePushWaitMs(): Promise<number | null> {
  const [row] = await getSequelize().query<{ wait_ms: number | null; pending: number }>(
    `select count(*)::int as pending,
            extract(epoch from min(greatest(coalesce(next_attempt_at, now()), coalesce(lease_until, now())) - now()))
              * 1000 as wait_ms
     from apple_pushes where status = 'pending'`,
    { type: QueryTypes.SELECT },
  )
  if (!row || row.pending === 0) return null
  return Math.max(0, Number(row.wait_ms ?? 0))
}

export type ApplePushOutcome = {
  id: string
  deviceId: string
  status: 'sent' | 'failed' | 'gone' | 'pending'
  error: string | null
  nextAttemptAt: Date | null
}

/**
 * Writes a group of outcomes in one statement, and forgets the devices APNs called gone (410: the device no longer
 * holds the pass's app token), with their registrations, in the same transaction.
 */
export async function recordApplePushOutcomes(rows: ApplePushOutcome[]): Promise<void> {
  await getSequelize().transaction(async (transaction) => {
    await getSequelize().query(
      `update apple_pushes a set status = r.status, last_error = r.error, next_attempt_at = r.next_attempt_at,
         lease_until = null, sent_at = case when r.status = 'sent' then now() else a.sent_at end
       from unnest(array[:ids]::bigint[], array[:statuses]::text[], array[:errors]::text[],
         array[:nexts]::timestamptz[]) as r(id, status, error, next_attempt_at)
       where a.id = r.id`,
      {
        replacements: {
          ids: rows.map((row) => row.id),
          statuses: rows.map((row) => row.status),
          errors: rows.map((row) => row.error),
          nexts: rows.map((row) => row.nextAttemptAt?.toISOString() ?? null),
        },
        transaction,
      },
    )
    const gone = rows.filter((row) => row.status === 'gone').map((row) => row.deviceId)
    if (gone.length) {
      await getSequelize().query(`delete from apple_devices where id in (:gone)`, {
        replacements: { gone },
        transaction,
      })
    }
  })
}

/**
 * With Apple Wallet turned off, queued pushes can never go: those older than `minutes` fail, so messages finish and
 * counts stay true (younger ones wait: the setting may be back at the next start).
 */
export async function failPendingApplePushes(reason: string, minutes: number): Promise<string[]> {
  const rows = await getSequelize().query<{ notification_id: string | null }>(
    `update apple_pushes set status = 'failed', last_error = :reason, lease_until = null
     where status = 'pending' and created_at < now() - make_interval(mins => :minutes) returning notification_id`,
    { replacements: { reason, minutes }, type: QueryTypes.SELECT },
  )
  return [...new Set(rows.flatMap((row) => (row.notification_id ? [row.notification_id] : [])))]
}

/** Pushes older than `days` that are settled are deleted (a message's counts keep its rows: they cascade with it). */
export async function pruneApplePushes(days: number): Promise<number> {
  const rows = await getSequelize().query(
    `delete from apple_pushes where status <> 'pending' and notification_id is null
       and created_at < now() - make_interval(days => :days) returning 1`,
    { replacements: { days }, type: QueryTypes.SELECT },
  )
  return rows.length
}
