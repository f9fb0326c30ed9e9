import { type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { APPLE_PASS_LOCATIONS_MAX } from '#app/utils/location-schemas.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { targetPassIdsSql, targetReplacements, type MessageTarget } from './holder-audience.server.ts'
import { PASS_MESSAGE_ID, PASS_MESSAGE_JOINS } from './pass-message.server.ts'
import { selectRows } from './transaction.server.ts'

/**
 * What an Apple Wallet pass shows, and when it last changed (migration 0010). Holders have no account: a pass is
 * reached by its unguessable id, and Apple's web service by the pass's HMAC token, checked by the caller.
 */

const select = selectRows

export type ApplePassRow = {
  passId: string
  shortCode: string
  stamps: number
  cardId: string
  userId: string
  title: string
  businessName: string
  stampsRequired: number
  backgroundColor: string
  textColor: string
  stampIcon: string
  reward: string
  terms: string
  stampPushOn: boolean
  /** The card's design version (its images are cached by it). */
  cardVersion: number
  logo: Buffer | null
  logoContentType: string | null
  /** The newest message that reached this pass (a broadcast or the holder's own), once it is on its way. */
  latestMessage: string | null
  /** The later of the pass's and its card's modification times, to the second. */
  modifiedAt: Date
  /** Where the pass comes up on the lock screen: the owner's oldest located locations, at most 10. */
  locations: { latitude: number; longitude: number }[]
}

/**
 * The latest message the holder of pass `p` was sent, as its page shows it (models/pass-message.server.ts): the newer
 * of the card's latest broadcast to all its holders (a pass added to Wallet afterwards shows it too) and the latest
 * message to this pass alone or to an audience it was in, once on its way.
 */
const LATEST_MESSAGE = `(select n.body from notifications n where n.id = ${PASS_MESSAGE_ID})`

const EFFECTIVE_MODIFIED = `greatest(p.wallet_modified_at, c.wallet_modified_at)`

/**
 * The locations the pass of card `c` carries (PassKit takes up to 10): the owner's that have a position and are not
 * removed, oldest first, as /account/locations says. A change to them moves cards.locations_changed_at (migration
 * 0014), which moves the card's wallet time and pushes its devices, so a pass kept by time is never stale.
 */
const PASS_LOCATIONS = `coalesce((select json_agg(json_build_object('latitude', l.latitude, 'longitude', l.longitude)
       order by l.created_at, l.id)
     from (select latitude, longitude, created_at, id from locations
           where owner_id = c.user_id and removed_at is null and latitude is not null and longitude is not null
           order by created_at, id limit ${APPLE_PASS_LOCATIONS_MAX}) l), '[]')`

/** Everything a pass needs to be built; null for an unknown pass. */
export async function getApplePassRow(passId: string): Promise<ApplePassRow | null> {
  if (!isUuid(passId)) return null
  const [row] = await select<ApplePassRow>(
    `select p.id as "passId", p.short_code as "shortCode", p.stamps, c.id as "cardId", c.user_id as "userId",
            c.title, c.business_name as "businessName", c.stamps_required as "stampsRequired",
            c.background_color as "backgroundColor", c.text_color as "textColor", c.stamp_icon as "stampIcon",
            c.reward, c.terms, c.auto_push as "stampPushOn", (extract(epoch from c.updated_at) * 1000)::float8
              as "cardVersion",
            c.logo, c.logo_content_type as "logoContentType", ${LATEST_MESSAGE} as "latestMessage",
            ${EFFECTIVE_MODIFIED} as "modifiedAt", ${PASS_LOCATIONS} as locations
     from passes p join cards c on c.id = p.card_id ${PASS_MESSAGE_JOINS} where p.id = :passId`,
    { passId },
  )
  if (!row) return null
  // json comes back parsed from node-postgres, as text from some drivers: accept both.
  const locations = (typeof row.locations === 'string' ? JSON.parse(row.locations) : row.locations) as {
    latitude: number | string
    longitude: number | string
  }[]
  return {
    ...row,
    modifiedAt: new Date(row.modifiedAt),
    locations: locations.map(({ latitude, longitude }) => ({
      latitude: Number(latitude),
      longitude: Number(longitude),
    })),
  }
}

/**
 * A pass's modification time, without loading the card: what a 304 needs. A voided pass (its card being deleted)
 * answers as voided even while its row still exists.
 */
export async function getApplePassModifiedAt(passId: string): Promise<{ modifiedAt: Date; voided: boolean } | null> {
  if (!isUuid(passId)) return null
  const [row] = await select<{ modifiedAt: Date; voided: boolean }>(
    `select * from (
       select modified_at as "modifiedAt", true as voided from apple_voided_passes where pass_id = :passId
       union all
       select ${EFFECTIVE_MODIFIED}, false from passes p join cards c on c.id = p.card_id where p.id = :passId
     ) found order by voided desc limit 1`,
    { passId },
  )
  return row ? { modifiedAt: new Date(row.modifiedAt), voided: row.voided } : null
}

/** The voided pass kept for a deleted card's devices (they fetch it once to show it voided). */
export async function getVoidedApplePass(passId: string): Promise<{ pkpass: Buffer; modifiedAt: Date } | null> {
  if (!isUuid(passId)) return null
  const [row] = await select<{ pkpass: Buffer; modifiedAt: Date }>(
    `select pkpass, modified_at as "modifiedAt" from apple_voided_passes where pass_id = :passId`,
    { passId },
  )
  return row ? { pkpass: row.pkpass, modifiedAt: new Date(row.modifiedAt) } : null
}

/**
 * The passes of the owner's cards (one card, or all of them) that sit in some device's Wallet: the ones to void before
 * the cards go.
 */
export async function listRegisteredPassIdsOfOwner({
  userId,
  cardId,
}: {
  userId: string
  cardId?: string
}): Promise<string[]> {
  if (!isUuid(userId) || (cardId !== undefined && !isUuid(cardId))) return []
  const rows = await select<{ id: string }>(
    `select distinct p.id from passes p join cards c on c.id = p.card_id
       join apple_registrations r on r.pass_id = p.id
     where c.user_id = :userId ${cardId ? 'and c.id = :cardId' : ''}`,
    { userId, cardId },
  )
  return rows.map((row) => row.id)
}

/**
 * Keeps the voided pass to serve and queues a push to each of its devices; its time moves past the live pass's.
 * Runs in the transaction that then deletes the card (the caller built `pkpass` from the live pass before).
 */
export async function storeVoidedApplePass(passId: string, pkpass: Buffer, transaction: Transaction) {
  await getSequelize().query(
    `with voided as (
       insert into apple_voided_passes (pass_id, pkpass, modified_at)
       select p.id, :pkpass, wallet_next_time(${EFFECTIVE_MODIFIED})
       from passes p join cards c on c.id = p.card_id where p.id = :passId
       on conflict (pass_id) do update set pkpass = excluded.pkpass, modified_at = excluded.modified_at
       returning pass_id
     )
     insert into apple_pushes (device_id, push_token, pass_id)
     select d.id, d.push_token, v.pass_id from voided v join apple_registrations r on r.pass_id = v.pass_id
       join apple_devices d on d.id = r.device_id`,
    { replacements: { passId, pkpass }, transaction },
  )
}

/**
 * A message is shown on the back of the passes it reaches, and each device holding one of them gets one push that
 * names the message, so its history counts them. A broadcast (to all the card's holders or to an audience) moves the
 * card's time, past every pass of it: one row, however many holders (moving each audience pass's own time costs a
 * row update per pass, and their triggers, inside the message's lock). The card's other passes then read as changed
 * without a change, which costs a device that happens to ask one needless fetch; only the audience's devices are
 * pushed. One holder's message moves that pass's time alone. Answers how many pushes were queued. Runs in the
 * transaction that prepares the message's deliveries.
 */
export async function queueMessageApplePushes(
  notificationId: string,
  transaction: Transaction,
  target: MessageTarget,
): Promise<number> {
  const touched =
    target.passId === null
      ? `touched_card as (
       update cards c set wallet_modified_at = wallet_next_time(greatest(c.wallet_modified_at,
         coalesce((select max(p.wallet_modified_at) from passes p where p.card_id = c.id), c.wallet_modified_at)))
       where c.id = :targetCardId returning c.id
     ), touched as (
       select t.id from touched_card, (${targetPassIdsSql(target)}) t
     )`
      : `touched as (
       update passes p set wallet_modified_at = wallet_next_time(greatest(p.wallet_modified_at, c.wallet_modified_at))
       from cards c
       where p.id = :targetPassId and c.id = p.card_id
       returning p.id
     )`
  const [row] = await select<{ count: number }>(
    `with ${touched}, queued as (
       insert into apple_pushes (device_id, push_token, pass_id, notification_id)
       select distinct on (d.id) d.id, d.push_token, touched.id, :notificationId
       from touched join apple_registrations r on r.pass_id = touched.id join apple_devices d on d.id = r.device_id
       order by d.id
       returning 1
     )
     select count(*)::int as count from queued`,
    { notificationId, ...targetReplacements(target) },
    transaction,
  )
  return row!.count
}
