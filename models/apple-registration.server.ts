import { type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { selectRows, withTransaction } from './transaction.server.ts'

/**
 * Devices that hold a pass in Apple Wallet, as Apple's pass web service registers them (migration 0010). A device is
 * Apple's device library identifier with its current push token; a registration ties it to one pass. The web
 * service checks the pass's token before calling any of these (the caller says so by calling them).
 */

const select = selectRows

export const isDeviceLibraryId = (value: string) => /^[A-Za-z0-9._-]{1,128}$/.test(value)
export const isApplePushToken = (value: unknown): value is string =>
  typeof value === 'string' && /^[0-9A-Fa-f]{1,200}$/.test(value)

/**
 * A holder's devices in Apple Wallet; the 11th replaces the oldest (docs/product/hardening.md, "Wallet devices", as for
 * web push).
 */
export const MAX_DEVICES_PER_PASS = 10

/**
 * Registers the device for a live pass; answers 'created' or 'exists', or null when the pass does not exist (or was
 * voided: nothing more to register for). Beyond MAX_DEVICES_PER_PASS the oldest registrations go: a holder's new
 * phone must work, and one pass's token cannot pile up devices (each one an APNs push on every stamp). The pass
 * row's lock queues parallel registrations for one pass, so the cap holds however many arrive at once.
 *
 * A device's push token changes (Apple gives a device a new one now and then) only through a registration for a
 * pass already registered to that device, or for a device that holds no pass any more: another pass's token proves
 * nothing about the device, and must not redirect its pushes (and with them the serial numbers of its passes).
 */
export async function registerAppleDevice({
  deviceId,
  pushToken,
  passId,
}: {
  deviceId: string
  pushToken: string
  passId: string
}): Promise<'created' | 'exists' | null> {
  if (!isUuid(passId) || !isDeviceLibraryId(deviceId) || !isApplePushToken(pushToken)) return null
  return withTransaction(async (transaction) => {
    const [pass] = await select(`select id from passes where id = :passId for update`, { passId }, transaction)
    if (!pass) return null
    // The clock, not the transaction's start: a registration that waited for the lock is still the newest.
    const [row] = await select<{ created: boolean }>(
      `with device as (
         insert into apple_devices (id, push_token) values (:deviceId, :pushToken)
         on conflict (id) do update set push_token = excluded.push_token
           where apple_devices.push_token is distinct from excluded.push_token
             and (exists (select 1 from apple_registrations r where r.device_id = excluded.id and r.pass_id = :passId)
                  or not exists (select 1 from apple_registrations r where r.device_id = excluded.id))
         returning id
       ), registered as (
         insert into apple_registrations (device_id, pass_id, created_at) values (:deviceId, :passId, clock_timestamp())
         on conflict do nothing returning 1
       )
       select exists (select 1 from registered) as created`,
      { deviceId, pushToken, passId },
      transaction,
    )
    if (!row!.created) return 'exists'
    await select(
      `delete from apple_registrations where (device_id, pass_id) in (
         select device_id, pass_id from apple_registrations where pass_id = :passId
         order by created_at desc, device_id desc offset :keep)
       returning device_id`,
      { passId, keep: MAX_DEVICES_PER_PASS },
      transaction,
    )
    return 'created'
  })
}

/**
 * Unregisters the device from the pass; false when it was not registered. A device left with no pass is forgotten by
 * pruneAppleRegistrations.
 */
export async function unregisterAppleDevice({ deviceId, passId }: { deviceId: string; passId: string }) {
  if (!isUuid(passId) || !isDeviceLibraryId(deviceId)) return false
  const rows = await select<{ device_id: string }>(
    `delete from apple_registrations where device_id = :deviceId and pass_id = :passId returning device_id`,
    { deviceId, passId },
  )
  return rows.length > 0
}

/**
 * The device's passes changed after `since` (all of them when null), live or voided, and the tag the device sends
 * next time, in whole seconds: the newest of their modification times, but never the database clock's current
 * second or later. A change gets a time at or after the clock's second (wallet_next_time), so a change made after
 * this answer is always past its tag, even one to another of the device's passes in the same second; a pass whose
 * time is that recent is listed once more next time (the device then hears 304 for it).
 */
export async function listUpdatedApplePasses({
  deviceId,
  since,
}: {
  deviceId: string
  since: Date | null
}): Promise<{ serialNumbers: string[]; lastUpdated: number | null }> {
  if (!isDeviceLibraryId(deviceId)) return { serialNumbers: [], lastUpdated: null }
  const rows = await select<{ id: string; modified: number; now: number }>(
    `select r.pass_id as id, extract(epoch from greatest(p.wallet_modified_at, c.wallet_modified_at))::bigint::float8
              as modified, extract(epoch from date_trunc('second', clock_timestamp()))::bigint::float8 as now
       from apple_registrations r join passes p on p.id = r.pass_id join cards c on c.id = p.card_id
       where r.device_id = :deviceId
     union all
     select r.pass_id, extract(epoch from v.modified_at)::bigint::float8,
            extract(epoch from date_trunc('second', clock_timestamp()))::bigint::float8
       from apple_registrations r join apple_voided_passes v on v.pass_id = r.pass_id
       where r.device_id = :deviceId`,
    { deviceId },
  )
  const after = since ? Math.floor(since.getTime() / 1000) : null
  const changed = rows.filter((row) => after === null || row.modified > after)
  if (!rows.length) return { serialNumbers: [], lastUpdated: null }
  const newest = Math.max(...rows.map((row) => Number(row.modified)))
  const clockSecond = Math.min(...rows.map((row) => Number(row.now)))
  return { serialNumbers: changed.map((row) => row.id).sort(), lastUpdated: Math.min(newest, clockSecond - 1) }
}

/** A holder removed their pass: its devices stop hearing about it (run before the pass row goes). */
export async function deleteAppleRegistrationsOfPass(passId: string, transaction?: Transaction) {
  if (!isUuid(passId)) return
  await getSequelize().query(`delete from apple_registrations where pass_id = :passId`, {
    replacements: { passId },
    transaction,
  })
}

/**
 * One of the owner's cards in Apple Wallet: its passes held there (holders), and the devices holding them (what a
 * message reaches). Zeros for another owner's card.
 */
export async function countCardAppleWallet({ cardId, userId }: { cardId: string; userId: string }) {
  if (!isUuid(cardId) || !isUuid(userId)) return { passes: 0, devices: 0 }
  const [row] = await select<{ passes: number; devices: number }>(
    `select count(distinct r.pass_id)::int as passes, count(distinct r.device_id)::int as devices
     from apple_registrations r join passes p on p.id = r.pass_id join cards c on c.id = p.card_id
     where c.id = :cardId and c.user_id = :userId`,
    { cardId, userId },
  )
  return row!
}

/**
 * Registrations whose pass is gone and not voided (a pass deleted some other way), and voided passes kept longer
 * than `keepDays`, are removed; a device left with nothing is forgotten. Answers how many registrations went.
 */
export async function pruneAppleRegistrations(keepDays: number): Promise<number> {
  const [row] = await select<{ count: number }>(
    `with expired as (
       delete from apple_voided_passes where created_at < now() - make_interval(days => :keepDays) returning pass_id
     ), removed as (
       delete from apple_registrations r
       where not exists (select 1 from passes p where p.id = r.pass_id)
         and (r.pass_id in (select pass_id from expired)
              or not exists (select 1 from apple_voided_passes v where v.pass_id = r.pass_id))
       returning device_id
     ), forgotten as (
       -- Sees the registrations as they were before this statement: a device emptied now goes next time.
       delete from apple_devices d where not exists (select 1 from apple_registrations r where r.device_id = d.id)
         and d.updated_at < now() - interval '1 hour'
       returning 1
     )
     select count(*)::int as count from removed`,
    { keepDays },
  )
  return row!.count
}
