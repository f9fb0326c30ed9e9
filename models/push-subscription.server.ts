import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/utils/db.server.ts'
import { isPassId } from './pass.server.ts'

export type PushSubscriptionInput = { endpoint: string; keys: { p256dh: string; auth: string } }

/**
 * Saves a pass's push subscription; unique per (pass, endpoint). Saving the same endpoint again (a browser that
 * renewed its keys) replaces the keys. Null when there is no such pass.
 */
export async function savePassSubscription(passId: string, { endpoint, keys }: PushSubscriptionInput): Promise<{ created: boolean } | null> {
  if (!isPassId(passId)) return null
  const rows = await getSequelize().query<{ created: boolean }>(
    `insert into push_subscriptions (pass_id, endpoint, p256dh, auth)
     select p.id, :endpoint, :p256dh, :auth from passes p where p.id = :passId
     on conflict (pass_id, endpoint) do update set p256dh = excluded.p256dh, auth = excluded.auth, updated_at = now()
     returning (xmax = 0) as created`,
    { replacements: { passId, endpoint, p256dh: keys.p256dh, auth: keys.auth }, type: QueryTypes.SELECT },
  )
  return rows[0] ?? null
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
  const rows = await getSequelize().query(`select 1 from push_subscriptions where pass_id = :passId and endpoint = :endpoint`, {
    replacements: { passId, endpoint },
    type: QueryTypes.SELECT,
  })
  return rows.length > 0
}
