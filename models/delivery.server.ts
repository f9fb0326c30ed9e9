import { type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import {
  targetPassConditionSql,
  targetPassIdsSql,
  targetReplacements,
  type MessageTarget,
} from './holder-audience.server.ts'
import { selectRows } from './transaction.server.ts'

/**
 * A message's `deliveries` rows, one per subscribed device (docs/decisions/017-push-delivery.md). The push jobs
 * (app/services/push/push-delivery.server.ts) decide when to claim, send and retry; these statements are the rows'
 * only writers, so the lease and the `for update skip locked` claim that keep two processes apart live in one place.
 * They take a notification id, never a card id: the jobs act on a message already queued by its owner.
 */

const select = selectRows

/** A slice of one message's delivery ids: one chunk job's share. */
export type DeliveryRange = { notificationId: string; fromId: string; toId: string }

export type ClaimedDelivery = {
  id: string
  subscription_id: string
  endpoint: string
  p256dh: string
  auth: string
  attempts: number
  pass_id: string
}

/**
 * Creates the message's deliveries, one per device of its target (an audience of the card's holders, or one
 * holder's pass); answers how many the message has (with those createFirstDeliveries made). A device holding two
 * passes of the card has one endpoint, so one delivery (docs/product/push-messages.md). Runs inside the transaction
 * that locked the notification row (lockNotificationStatus, which reads the target).
 */
export async function createNotificationDeliveries(
  notificationId: string,
  transaction: Transaction,
  target: MessageTarget,
): Promise<number> {
  const [inserted] = await select<{ count: number }>(
    `with audience as (${AUDIENCE_DEVICES(target)}), created as (
       insert into deliveries (notification_id, push_subscription_id)
       select :notificationId, id from audience order by id
       on conflict do nothing returning 1
     )
     -- The statement's snapshot does not see its own inserts: the rows made before it (createFirstDeliveries) plus these.
     select (select count(*) from created)::int
       + (select count(*) from deliveries where notification_id = :notificationId)::int as count`,
    { notificationId, ...targetReplacements(target) },
    transaction,
  )
  return inserted!.count
}

/**
 * One subscription per device (endpoint) of the target's passes: the newest (then the highest id), when a device
 * holds two passes. DEVICE_IS_NEWEST says the same of one subscription `s`, so the first deliveries
 * (createFirstDeliveries) pick the same subscription for a device as the rest do.
 */
const AUDIENCE_DEVICES = (target: MessageTarget) => `
  select distinct on (s.endpoint) s.id, s.endpoint
  from (${targetPassIdsSql(target)}) t join push_subscriptions s on s.pass_id = t.id
  order by s.endpoint, s.updated_at desc, s.id desc`
// A join, not `d.pass_id in (target)`: the planner hashed the whole audience for that (1 s for 10,000 holders).
const DEVICE_IS_NEWEST = (target: MessageTarget) => `not exists (
    select 1 from push_subscriptions d join passes p on p.id = d.pass_id join cards c on c.id = p.card_id
    where d.endpoint = s.endpoint and d.id <> s.id and (d.updated_at, d.id) > (s.updated_at, s.id)
      and ${targetPassConditionSql(target)})`

/**
 * The first `limit` deliveries of a message, in their own transaction ahead of the rest (push-delivery.server.ts
 * prepareFirstChunk): any `limit` devices of the target, found without reading (or sorting) the whole audience, each
 * by the subscription the rest would pick for it. Answers the id range of those created here, or null when none was
 * (the message has them already: another process made them).
 */
export async function createFirstDeliveries(
  notificationId: string,
  transaction: Transaction,
  target: MessageTarget,
  limit: number,
): Promise<{ min: string; max: string } | null> {
  const [row] = await select<{ min: string | null; max: string | null }>(
    `with audience as (
       select s.id from (${targetPassIdsSql(target)}) t join push_subscriptions s on s.pass_id = t.id
       where ${DEVICE_IS_NEWEST(target)}
         and not exists (select 1 from deliveries x where x.notification_id = :notificationId
                         and x.push_subscription_id = s.id)
       limit :limit
     ), created as (
       insert into deliveries (notification_id, push_subscription_id)
       select :notificationId, id from audience order by id
       on conflict do nothing returning id
     )
     select min(id)::text as min, max(id)::text as max from created`,
    { notificationId, limit, ...targetReplacements(target) },
    transaction,
  )
  return row?.min && row.max ? { min: row.min, max: row.max } : null
}

/** The lowest and highest id of the message's pending deliveries (both null: none pending), for the chunk ranges. */
export async function pendingDeliveryBounds(
  notificationId: string,
  transaction?: Transaction,
): Promise<{ min: string | null; max: string | null } | undefined> {
  const [bounds] = await select<{ min: string | null; max: string | null }>(
    `select min(id)::text as min, max(id)::text as max from deliveries where notification_id = :notificationId
      and status = 'pending'`,
    { notificationId },
    transaction,
  )
  return bounds
}

/**
 * Claims up to `limit` due, unleased pending rows of the range for `leaseSeconds`; each claim counts as an attempt.
 * `for update skip locked`: two processes never claim the same row.
 */
export async function claimDeliveries(range: DeliveryRange, limit: number, leaseSeconds: number) {
  return select<ClaimedDelivery>(
    `with picked as (
       select id from deliveries
       where notification_id = :notificationId and id between :fromId and :toId and status = 'pending'
         and push_subscription_id is not null
         and (lease_until is null or lease_until < now()) and (next_attempt_at is null or next_attempt_at <= now())
       order by id limit :limit
       for update skip locked
     )
     update deliveries d set attempts = d.attempts + 1, lease_until = now() + make_interval(secs => :lease)
     from picked, push_subscriptions s
     where d.id = picked.id and s.id = d.push_subscription_id
     returning d.id::text as id, s.id as subscription_id, s.endpoint, s.p256dh, s.auth, d.attempts, s.pass_id`,
    { ...range, limit, lease: leaseSeconds },
  )
}

/**
 * Extends the leases of rows a chunk still holds (waiting for a request slot, or in flight), each only if no other
 * claim took it since: its `attempts` is still the one this holder's claim set (every claim adds one). Answers the
 * ids renewed; a row missing from the answer is another claimer's now, and this holder must not send it.
 */
export async function renewDeliveryLeases(held: { id: string; attempts: number }[], leaseSeconds: number) {
  if (held.length === 0) return []
  const rows = await select<{ id: string }>(
    `update deliveries d set lease_until = now() + make_interval(secs => :lease)
     from unnest(array[:ids]::bigint[], array[:attempts]::int[]) as h(id, attempts)
     where d.id = h.id and d.attempts = h.attempts and d.status = 'pending'
     returning d.id::text as id`,
    { ids: held.map((row) => row.id), attempts: held.map((row) => row.attempts), lease: leaseSeconds },
  )
  return rows.map((row) => row.id)
}

/** The range's pending rows and how long until the first can be claimed (a retry's time, or a lease's end). */
export async function pendingDeliveryWait(range: DeliveryRange) {
  const [row] = await select<{ wait_ms: number | null; pending: number }>(
    `select count(*)::int as pending,
            extract(epoch from min(greatest(coalesce(next_attempt_at, now()), coalesce(lease_until, now())) - now()))
              * 1000 as wait_ms
     from deliveries where notification_id = :notificationId and id between :fromId and :toId and status = 'pending'`,
    range,
  )
  return row
}

/**
 * Rows whose subscription was deleted after they were claimable (the holder turned notifications off) are dropped
 * by the claim's join: marks them gone so the message can finish.
 */
export async function markOrphanDeliveriesGone(range: DeliveryRange): Promise<void> {
  await getSequelize().query(
    `update deliveries set status = 'gone', last_error = 'unsubscribed', lease_until = null
     where notification_id = :notificationId and id between :fromId and :toId and status = 'pending'
       and push_subscription_id is null`,
    { replacements: range },
  )
}

export type DeliveryOutcome = {
  id: string
  /** The claim's attempt: an outcome is stored only while no later claim took the row. */
  attempts: number
  subscriptionId: string
  status: 'sent' | 'failed' | 'gone' | 'pending'
  error: string | null
  nextAttemptAt: Date | null
}

/**
 * Writes a group of outcomes in one statement, and deletes the subscriptions the push service called gone (nobody
 * may send to them again), in one transaction: an outcome is never stored without its subscription's removal. The
 * outcome of a claim that another claim replaced is not stored (it could turn a 'sent' back to 'pending'). A
 * group with none gone is the one statement alone (atomic by itself): no BEGIN and COMMIT round trips for the
 * common case.
 */
export async function recordDeliveryOutcomes(rows: DeliveryOutcome[]): Promise<void> {
  const gone = rows.filter((row) => row.status === 'gone').map((row) => row.subscriptionId)
  const write = async (transaction?: Transaction) => {
    await getSequelize().query(
      `update deliveries d set status = r.status, last_error = r.error, next_attempt_at = r.next_attempt_at,
        lease_until = null,
              sent_at = case when r.status = 'sent' then now() else d.sent_at end
       from unnest(array[:ids]::bigint[], array[:attempts]::int[], array[:statuses]::text[], array[:errors]::text[],
         array[:nexts]::timestamptz[])
         as r(id, attempts, status, error, next_attempt_at)
       where d.id = r.id and d.attempts = r.attempts`,
      {
        replacements: {
          ids: rows.map((row) => row.id),
          attempts: rows.map((row) => row.attempts),
          statuses: rows.map((row) => row.status),
          errors: rows.map((row) => row.error),
          nexts: rows.map((row) => row.nextAttemptAt?.toISOString() ?? null),
        },
        transaction,
      },
    )
    if (gone.length) {
      await getSequelize().query(`delete from push_subscriptions where id in (:gone)`, {
        replacements: { gone },
        transaction,
      })
    }
  }
  if (gone.length === 0) return write()
  await getSequelize().transaction((transaction) => write(transaction))
}
