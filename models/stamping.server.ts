import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from './card.server.ts'
import { type BatchedTransaction, type Statement } from './transaction.server.ts'

/**
 * Stamping's statements (issue #5, item 5); the rules — limits, refusals, the holder's push — are in
 * app/services/cards/stamping.server.ts. Each operation runs in one transaction that locks the pass row
 * (`for update`), so parallel requests on one pass queue instead of losing or doubling a stamp; its statements go in
 * batches (withBatchedTransaction: BEGIN with the lock, COMMIT with the change), and every statement here names the
 * transaction (the embedded database serves one connection at a time: a second connection inside an
 * open transaction would wait for ever). Every action is a stamp_events row with the owner and the time. Every
 * function is scoped by the card's owner: the pass is found through a card of theirs.
 */

export type LockedPass = {
  id: string
  short_code: string
  stamps: number
  rewards_redeemed: number
  stamps_required: number
  /** The card's words the holder's automatic push shows. */
  business_name: string
  title: string
  reward: string
  /** The card's stamping rules (migration 0014) and what they are checked against. */
  max_stamps_per_scan: number
  /** The end of the pause after the pass's last stamp that stands; null when the card has no pause or none stands. */
  pause_until: Date | null
  daily_stamp_cap: number | null
  /** With a daily cap: the pass's stamps today (the owner's local day) and when the next local day starts. */
  stamps_today: number | null
  next_day_at: Date | null
  time_zone: string
  /** The database's clock at the start of the transaction: the rules are checked against it. */
  now: Date
}

export type PassReference = { passId: string } | { shortCode: string }

const OWNED_PASS = (reference: PassReference) =>
  `${'passId' in reference ? 'p.id = :passId' : 'p.short_code = :shortCode'} and p.card_id = :cardId
   and c.user_id = :ownerId`

/**
 * Opens the transaction and locks the pass when it belongs to the owner's card (else answers null), with the card's
 * stamping rules and what they are checked against, in one round trip: the lock, then a read of the locked pass.
 * The read is a statement of its own so its snapshot is taken once the lock is held: under READ COMMITTED a
 * statement that waited for the lock sees only the locked row as the other stamp left it, not that stamp's pass_days
 * row, and a daily cap read there could let two parallel stamps past it. Today's stamps come from the pass's
 * pass_days row (0012), kept in the owner's zone.
 */
export async function lockPassOfOwnedCard(
  transaction: BatchedTransaction,
  { ownerId, cardId, reference }: { ownerId: string; cardId: string; reference: PassReference },
): Promise<LockedPass | null> {
  if (!isUuid(cardId) || !isUuid(ownerId)) return null
  if ('passId' in reference && !isUuid(reference.passId)) return null
  if ('shortCode' in reference && !/^[A-Z0-9]{1,32}$/.test(reference.shortCode)) return null
  const replacements = { ...reference, cardId, ownerId }
  const [, locked] = await transaction.run<LockedPass>([
    {
      sql: `select p.id from passes p join cards c on c.id = p.card_id where ${OWNED_PASS(reference)} for update of p`,
      replacements,
    },
    {
      sql: `select p.id, p.short_code, p.stamps, p.rewards_redeemed, c.stamps_required, c.business_name, c.title,
                   c.reward, c.max_stamps_per_scan, c.daily_stamp_cap, u.time_zone, now() as now,
                   case when c.stamp_pause_minutes > 0
                     then p.last_stamped_at + make_interval(mins => c.stamp_pause_minutes) end as pause_until,
                   case when c.daily_stamp_cap is not null then coalesce(
                     (select d.stamps from pass_days d
                      where d.pass_id = p.id and d.day = (now() at time zone u.time_zone)::date), 0) end as stamps_today,
                   case when c.daily_stamp_cap is not null
                     then ((now() at time zone u.time_zone)::date + 1)::timestamp at time zone u.time_zone
                   end as next_day_at
            from passes p join cards c on c.id = p.card_id join users u on u.id = c.user_id
            where ${OWNED_PASS(reference)}`,
      replacements,
    },
  ])
  return locked?.[0] ?? null
}

/**
 * The newest event of a pass the caller locked with lockPassOfOwnedCard (so its owner is checked), if it is a stamp
 * younger than `windowSeconds` (and, with `byActor`, given by that person: staff undo only their own stamps): its
 * count and the window's end.
 */
export async function undoableStampOfLockedPass(
  transaction: BatchedTransaction,
  { passId, windowSeconds, byActor }: { passId: string; windowSeconds: number; byActor?: string },
): Promise<{ id: string; count: number; undo_until: Date } | null> {
  const [rows] = await transaction.run<{
    id: string
    kind: string
    count: number
    actor_id: string | null
    undo_until: Date
    open: boolean
  }>([
    {
      sql: `select id, kind, count, actor_id, created_at + make_interval(secs => :windowSeconds) as undo_until,
                   created_at + make_interval(secs => :windowSeconds) > now() as open
            from stamp_events where pass_id = :passId order by id desc limit 1`,
      replacements: { passId, windowSeconds },
    },
  ])
  const row = rows?.[0]
  return row && row.kind === 'stamp' && row.open && (byActor === undefined || row.actor_id === byActor)
    ? { id: row.id, count: row.count, undo_until: new Date(row.undo_until) }
    : null
}

export type StampEvent = {
  ownerId: string
  /** Who did it: the owner, an admin, or a staff member of the owner (migration 0014). */
  actorId: string
  /** Where: one of the owner's locations, or null when the business has none. */
  locationId: string | null
  /** The owner stamped past a stamping rule with the override tick. */
  overridden: boolean
  cardId: string
  kind: 'stamp' | 'undo' | 'redeem'
  count: number
  stampsDelta: number
  rewardsDelta: number
}

/** What an event left on its pass, and in which wallets the pass is (their triggers queued its update there). */
export type AppliedEvent = {
  stamps: number
  rewards_redeemed: number
  created_at: Date
  in_apple_wallet: boolean
  in_google_wallet: boolean
}

/**
 * Changes the counters of a pass the caller locked with lockPassOfOwnedCard (its owner checked) and records the
 * event, in one statement, then runs `then` (the holder's push: it sees the pass as the event left it) and commits,
 * all in one round trip; answers the counters as they now are, the event's time, whether the pass is in Apple Wallet
 * (a device registered) or Google Wallet (an active object) — the wallet triggers queued an update for each (0010,
 * 0011) — and the rows `then` answered. The wallets are read in the statement's snapshot: a device registering in
 * the same instant may get its row from the trigger unannounced, and the resume job sends it.
 */
export async function applyEventAndCommit(
  transaction: BatchedTransaction,
  passId: string,
  { cardId, actorId, locationId, overridden, kind, count, stampsDelta, rewardsDelta }: StampEvent,
  then: Statement[] = [],
): Promise<AppliedEvent & { then: Record<string, unknown>[][] }> {
  const [applied, ...rest] = await transaction.run<AppliedEvent>(
    [
      {
        sql: `with updated as (
       update passes set stamps = greatest(stamps + :stampsDelta, 0),
         rewards_redeemed = rewards_redeemed + :rewardsDelta,
         -- The pause rule counts from the last stamp that stands: an undo gives the one before it back.
         last_stamped_at = case when :kind = 'stamp' then now()
           when :kind = 'undo' then (select max(e.created_at) from stamp_events e
              where e.pass_id = :passId and e.kind = 'stamp' and e.undone_at is null
                and e.id < (select max(n.id) from stamp_events n where n.pass_id = :passId))
           else last_stamped_at end,
         -- A visit is a stamp or a redemption; an undo takes the newest stamp back, so the last visit is the one
         -- before it (or the join). The statement sees the events as they were before it: the newest is that stamp.
         last_visit_at = case when :kind = 'undo' then coalesce(
             (select max(e.created_at) from stamp_events e
              where e.pass_id = :passId and e.kind in ('stamp', 'redeem') and e.undone_at is null
                and e.id < (select max(n.id) from stamp_events n where n.pass_id = :passId)),
             created_at)
           else now() end
       where id = :passId returning stamps, rewards_redeemed
     ), event as (
       insert into stamp_events (pass_id, card_id, actor_id, location_id, overridden, kind, count)
         values (:passId, :cardId, :actorId, :locationId, :overridden, :kind, :count)
       returning created_at
     )
     select updated.stamps, updated.rewards_redeemed, event.created_at,
            exists (select 1 from apple_registrations r where r.pass_id = :passId) as in_apple_wallet,
            exists (select 1 from google_wallet_objects o where o.pass_id = :passId and o.state = 'active')
              as in_google_wallet
     from updated, event`,
        replacements: { passId, cardId, actorId, locationId, overridden, kind, count, stampsDelta, rewardsDelta },
      },
      ...then,
    ],
    { commit: true },
  )
  return { ...applied![0]!, then: rest }
}

export type PassWithUndoWindow = Pick<
  LockedPass,
  'id' | 'short_code' | 'stamps' | 'rewards_redeemed' | 'stamps_required'
> & {
  undo_until: Date | null
  /** Who made the stamp that may be undone (null: the owner before issue 20, or no such stamp). */
  undo_actor_id: string | null
}

/**
 * A pass of the owner's card with the end of its undo window and who stamped it (null when its newest event is not a
 * stamp younger than `windowSeconds`), or null when it is not a pass of the owner's card.
 */
export async function getPassOfOwnedCard({
  ownerId,
  cardId,
  passId,
  windowSeconds,
}: {
  ownerId: string
  cardId: string
  passId: string
  windowSeconds: number
}): Promise<PassWithUndoWindow | null> {
  if (!isUuid(passId) || !isUuid(cardId)) return null
  const [row] = await getSequelize().query<PassWithUndoWindow>(
    `select p.id, p.short_code, p.stamps, p.rewards_redeemed, c.stamps_required, e.undo_until,
            case when e.undo_until is not null then e.actor_id end as undo_actor_id
     from passes p join cards c on c.id = p.card_id
     left join lateral (
       select e.actor_id,
              case when e.kind = 'stamp' and e.created_at + make_interval(secs => :windowSeconds) > now()
                   then e.created_at + make_interval(secs => :windowSeconds) end as undo_until
       from stamp_events e where e.pass_id = p.id order by e.id desc limit 1
     ) e on true
     where p.id = :passId and p.card_id = :cardId and c.user_id = :ownerId`,
    { replacements: { passId, cardId, ownerId, windowSeconds }, type: QueryTypes.SELECT },
  )
  return row ?? null
}
