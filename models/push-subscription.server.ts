import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isPassId } from './pass.server.ts'

export type PushSubscriptionInput = { endpoint: string; keys: { p256dh: string; auth: string } }

/**
 * A holder's phones, tablets and browsers; the 11th replaces the oldest (docs/product/hardening.md, "Push endpoints").
 */
export const MAX_SUBSCRIPTIONS_PER_PASS = 10

/**
 * Saves a pass's push subscription; unique per (pass, endpoint). Saving the same endpoint again (a browser that
 * renewed its keys) replaces the keys. Beyond MAX_SUBSCRIPTIONS_PER_PASS the least recently saved go: a holder's
 * new phone must work, and nobody can pile up rows (each one a request on every stamp). The pass row's lock queues
 * parallel saves for one pass, so the cap holds however many arrive at once. Null when there is no such pass.
 */
export async function savePassSubscription(
  passId: string,
  { endpoint, keys }: PushSubscriptionInput,
): Promise<{ created: boolean } | null> {
  if (!isPassId(passId)) return null
  return getSequelize().transaction(async (transaction) => {
    const [pass] = await getSequelize().query(`select id from passes where id = :passId for update`, {
      replacements: { passId },
      type: QueryTypes.SELECT,
      transaction,
    })
    if (!pass) return null
    // The clock, not the transaction's start: a save that waited for the lock is still the newest.
    const [saved] = await getSequelize().query<{ created: boolean }>(
      `insert into push_subscriptions (pass_id, endpoint, p256dh, auth, updated_at) 
         values (:passId, :endpoint, :p256dh, :auth, clock_timestamp())
       on conflict (pass_id, endpoint) do update set p256dh = excluded.p256dh, auth = excluded.auth,
         updated_at = clock_timestamp()
       returning (xmax = 0) as created`,
      {
        replacements: { passId, endpoint, p256dh: keys.p256dh, auth: keys.auth },
        type: QueryTypes.SELECT,
        transaction,
      },
    )
    await getSequelize().query(
      `delete from push_subscriptions where id in (
         select id from push_subscriptions where pass_id = :passId order by updated_at desc, id desc offset :keep)`,
      { replacements: { passId, keep: MAX_SUBSCRIPTIONS_PER_PASS }, transaction },
    )
    return saved ?? null
  })
}

/** Removes the pass's subscription to this endpoint; false when there was none. */
export async function deletePassSubscription(passId: string, endpoint: string): Promise<boolean> {
  if (!isPassId(passId)) return false
  const rows = await getSequelize().query<{ id: string }>(
    `delete from push_subscriptions where pass_id = :passId and endpoint = :endpoint returning id`,
    { replacements: { passId, endpoint }, type: QueryTypes.SELECT },
  )
  return rows.length > 0
}

/** Whether the pass has a subscription to this endpoint (the pass page's "notifications are on"). */
export async function hasPassSubscription(passId: string, endpoint: string): Promise<boolean> {
  if (!isPassId(passId)) return false
  const rows = await getSequelize().query(
    `select 1 from push_subscriptions where pass_id = :passId and endpoint = :endpoint`,
    {
      replacements: { passId, endpoint },
      type: QueryTypes.SELECT,
    },
  )
  return rows.length > 0
}
