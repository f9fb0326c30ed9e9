import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from './card.server.ts'

/**
 * Stamping's statements (issue #5, item 5); the rules — limits, refusals, the holder's push — are in
 * app/services/cards/stamping.server.ts. Each operation runs in one transaction that locks the pass row
 * (`for update`), so parallel requests on one pass queue instead of losing or doubling a stamp, and every statement
 * here names the transaction (the embedded database serves one connection at a time: a second connection inside an
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
}

export type PassReference = { passId: string } | { shortCode: string }

/** The pass, locked for the transaction, when it belongs to the owner's card; else null. */
export async function lockPassOfOwnedCard(
  transaction: Transaction,
  { ownerId, cardId, reference }: { ownerId: string; cardId: string; reference: PassReference },
): Promise<LockedPass | null> {
  if (!isUuid(cardId) || !isUuid(ownerId)) return null
  if ('passId' in reference && !isUuid(reference.passId)) return null
  if ('shortCode' in reference && !/^[A-Z0-9]{1,32}$/.test(reference.shortCode)) return null
  const [row] = await getSequelize().query<LockedPass>(
    `select p.id, p.short_code, p.stamps, p.rewards_redeemed, c.stamps_required, c.business_name, c.title, c.reward
     from passes p join cards c on c.id = p.card_id
     where ${'passId' in reference ? 'p.id = :passId' : 'p.short_code = :shortCode'} and p.card_id = :cardId
       and c.user_id = :ownerId
     for update of p`,
    { replacements: { ...reference, cardId, ownerId }, type: QueryTypes.SELECT, transaction },
  )
  return row ?? null
}

/**
 * The newest event of a pass the caller locked with lockPassOfOwnedCard (so its owner is checked), if it is a stamp
 * younger than `windowSeconds`: its count and the window's end.
 */
export async function undoableStampOfLockedPass(
  transaction: Transaction,
  { passId, windowSeconds }: { passId: string; windowSeconds: number },
): Promise<{ id: string; count: number; undo_until: Date } | null> {
  const [row] = await getSequelize().query<{
    id: string
    kind: string
    count: number
    undo_until: Date
    open: boolean
  }>(
    `select id, kind, count, created_at + make_interval(secs => :windowSeconds) as undo_until,
            created_at + make_interval(secs => :windowSeconds) > now() as open
     from stamp_events where pass_id = :passId order by id desc limit 1`,
    { replacements: { passId, windowSeconds }, type: QueryTypes.SELECT, transaction },
  )
  return row && row.kind === 'stamp' && row.open
    ? { id: row.id, count: row.count, undo_until: new Date(row.undo_until) }
    : null
}

export type StampEvent = {
  ownerId: string
  cardId: string
  kind: 'stamp' | 'undo' | 'redeem'
  count: number
  stampsDelta: number
  rewardsDelta: number
}

/**
 * Changes the counters of a pass the caller locked with lockPassOfOwnedCard (its owner checked) and records the
 * event, in one statement; answers the counters as they now are and the event's time.
 */
export async function applyEventToLockedPass(
  transaction: Transaction,
  passId: string,
  { ownerId, cardId, kind, count, stampsDelta, rewardsDelta }: StampEvent,
): Promise<{ stamps: number; rewards_redeemed: number; created_at: Date }> {
  const [row] = await getSequelize().query<{ stamps: number; rewards_redeemed: number; created_at: Date }>(
    `with updated as (
       update passes set stamps = greatest(stamps + :stampsDelta, 0),
         rewards_redeemed = rewards_redeemed + :rewardsDelta,
         last_stamped_at = case when :kind = 'stamp' then now() else last_stamped_at end,
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
       insert into stamp_events (pass_id, card_id, actor_id, kind, count)
         values (:passId, :cardId, :ownerId, :kind, :count)
       returning created_at
     )
     select updated.stamps, updated.rewards_redeemed, event.created_at from updated, event`,
    {
      replacements: { passId, cardId, ownerId, kind, count, stampsDelta, rewardsDelta },
      type: QueryTypes.SELECT,
      transaction,
    },
  )
  return row!
}

export type PassWithUndoWindow = Omit<LockedPass, 'business_name' | 'title' | 'reward'> & { undo_until: Date | null }

/**
 * A pass of the owner's card with the end of its undo window (null when its newest event is not a stamp younger
 * than `windowSeconds`), or null when it is not a pass of the owner's card.
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
    `select p.id, p.short_code, p.stamps, p.rewards_redeemed, c.stamps_required,
            (select case when e.kind = 'stamp' and e.created_at + make_interval(secs => :windowSeconds) > now()
                         then e.created_at + make_interval(secs => :windowSeconds) end
             from stamp_events e where e.pass_id = p.id order by e.id desc limit 1) as undo_until
     from passes p join cards c on c.id = p.card_id
     where p.id = :passId and p.card_id = :cardId and c.user_id = :ownerId`,
    { replacements: { passId, cardId, ownerId, windowSeconds }, type: QueryTypes.SELECT },
  )
  return row ?? null
}
