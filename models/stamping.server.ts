import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { enqueuePushMessage } from '#app/server/jobs.server.ts'
import { queueStampPush } from './automatic-push.server.ts'
import { isUuid } from './card.server.ts'

/**
 * Stamping (issue #5, item 5): the owner stamps a pass of one of their cards by its short code, undoes the last
 * stamp within UNDO_WINDOW_MS, and redeems the reward, which starts a new round. Each operation is one transaction
 * that locks the pass row (`for update`), so parallel requests on one pass queue instead of losing or doubling a
 * stamp, and every query in it names the transaction (the embedded database serves one connection at a time: a
 * second connection inside an open transaction would wait for ever). Every action is a stamp_events row with the
 * owner and the time.
 */
export const UNDO_WINDOW_MS = 2 * 60 * 1000
export const MAX_STAMPS_AT_ONCE = 20
export const NO_CARD_WITH_THIS_CODE = 'No card with this code'
export const CARD_FULL = 'All stamps collected: redeem the reward first'
export const UNDO_EXPIRED = 'The last stamp can no longer be undone'
export const REWARD_NOT_EARNED = 'The reward is not earned yet'
export const PASS_NOT_FOUND = 'Pass not found'
export const stampsLeftMessage = (left: number) => (left === 1 ? 'Only 1 stamp left on this card' : `Only ${left} stamps left on this card`)

export type PassStampState = {
  passId: string
  shortCode: string
  stamps: number
  stampsRequired: number
  rewardsRedeemed: number
  rewardEarned: boolean
  /** Until when the last stamp can be undone (null: nothing to undo). */
  undoUntil: Date | null
}

export type StampingRefusal = { ok: false; status: 400 | 404 | 409; field: 'code' | 'count' | 'form'; message: string }
export type StampingResult = { ok: true; pass: PassStampState } | StampingRefusal

const refuse = (status: StampingRefusal['status'], field: StampingRefusal['field'], message: string): StampingRefusal => ({
  ok: false,
  status,
  field,
  message,
})

/**
 * What the owner typed or the camera read: a short code in any case, with spaces or dashes ("abcd-efgh"), or the
 * address of the pass page (`.../p/{passId}`), should the holder's QR carry that.
 */
export function parsePassReference(value: string): { passId: string } | { shortCode: string } {
  const address = /\/p\/([^/?#]+)(?:[/?#]|$)/.exec(value.trim())?.[1]
  if (isUuid(address)) return { passId: address.toLowerCase() }
  return { shortCode: value.toUpperCase().replace(/[\s-]+/g, '') }
}

type LockedPass = { id: string; short_code: string; stamps: number; rewards_redeemed: number; stamps_required: number }

/** The pass, locked for the transaction, when it belongs to the owner's card; else null. */
async function lockOwnedPass(
  transaction: Transaction,
  { ownerId, cardId, reference }: { ownerId: string; cardId: string; reference: { passId: string } | { shortCode: string } },
): Promise<LockedPass | null> {
  if (!isUuid(cardId) || !isUuid(ownerId)) return null
  if ('passId' in reference && !isUuid(reference.passId)) return null
  if ('shortCode' in reference && !/^[A-Z0-9]{1,32}$/.test(reference.shortCode)) return null
  const [row] = await getSequelize().query<LockedPass>(
    `select p.id, p.short_code, p.stamps, p.rewards_redeemed, c.stamps_required
     from passes p join cards c on c.id = p.card_id
     where ${'passId' in reference ? 'p.id = :passId' : 'p.short_code = :shortCode'} and p.card_id = :cardId and c.user_id = :ownerId
     for update of p`,
    { replacements: { ...reference, cardId, ownerId }, type: QueryTypes.SELECT, transaction },
  )
  return row ?? null
}

/** The newest event of the pass, if it is a stamp still inside the undo window: its count and the window's end. */
async function undoableStamp(transaction: Transaction, passId: string): Promise<{ id: string; count: number; undo_until: Date } | null> {
  const [row] = await getSequelize().query<{ id: string; kind: string; count: number; undo_until: Date; open: boolean }>(
    `select id, kind, count, created_at + make_interval(secs => :windowSeconds) as undo_until,
            created_at + make_interval(secs => :windowSeconds) > now() as open
     from stamp_events where pass_id = :passId order by id desc limit 1`,
    { replacements: { passId, windowSeconds: UNDO_WINDOW_MS / 1000 }, type: QueryTypes.SELECT, transaction },
  )
  return row && row.kind === 'stamp' && row.open ? { id: row.id, count: row.count, undo_until: new Date(row.undo_until) } : null
}

function stateOf(pass: LockedPass, undoUntil: Date | null): PassStampState {
  return {
    passId: pass.id,
    shortCode: pass.short_code,
    stamps: pass.stamps,
    stampsRequired: pass.stamps_required,
    rewardsRedeemed: pass.rewards_redeemed,
    rewardEarned: pass.stamps >= pass.stamps_required,
    undoUntil,
  }
}

/**
 * Changes the locked pass's counters and records the event, in one statement; answers the pass as it now is and,
 * for a stamp, until when it can be undone.
 */
async function applyEvent(
  transaction: Transaction,
  pass: LockedPass,
  { ownerId, cardId, kind, count, stampsDelta, rewardsDelta }: { ownerId: string; cardId: string; kind: 'stamp' | 'undo' | 'redeem'; count: number; stampsDelta: number; rewardsDelta: number },
): Promise<{ state: PassStampState; pushId: string | null }> {
  const [row] = await getSequelize().query<{ stamps: number; rewards_redeemed: number; created_at: Date }>(
    `with updated as (
       update passes set stamps = greatest(stamps + :stampsDelta, 0), rewards_redeemed = rewards_redeemed + :rewardsDelta,
         last_stamped_at = case when :kind = 'stamp' then now() else last_stamped_at end
       where id = :passId returning stamps, rewards_redeemed
     ), event as (
       insert into stamp_events (pass_id, card_id, actor_id, kind, count) values (:passId, :cardId, :ownerId, :kind, :count)
       returning created_at
     )
     select updated.stamps, updated.rewards_redeemed, event.created_at from updated, event`,
    { replacements: { passId: pass.id, cardId, ownerId, kind, count, stampsDelta, rewardsDelta }, type: QueryTypes.SELECT, transaction },
  )
  const undoUntil = kind === 'stamp' ? new Date(new Date(row!.created_at).getTime() + UNDO_WINDOW_MS) : null
  // The holder's automatic push: only for a stamp, and within its limits (automatic-push.server.ts).
  const pushId = kind === 'stamp' ? await queueStampPush(transaction, { passId: pass.id, cardId, count }) : null
  return { state: stateOf({ ...pass, stamps: row!.stamps, rewards_redeemed: row!.rewards_redeemed }, undoUntil), pushId }
}

/** Gives `count` stamps (1–20) to the pass with this code on the owner's card. */
export async function stampPass({ ownerId, cardId, code, count = 1 }: { ownerId: string; cardId: string; code: string; count?: number }): Promise<StampingResult> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_STAMPS_AT_ONCE) {
    return refuse(400, 'count', `Give between 1 and ${MAX_STAMPS_AT_ONCE} stamps at once`)
  }
  const result = await getSequelize().transaction(async (transaction) => {
    const pass = await lockOwnedPass(transaction, { ownerId, cardId, reference: parsePassReference(code) })
    // Unknown, or a pass of another card (this owner's or not): the same answer, so no code reveals another holder.
    if (!pass) return refuse(404, 'code', NO_CARD_WITH_THIS_CODE)
    const left = pass.stamps_required - pass.stamps
    if (left <= 0) return refuse(409, 'code', CARD_FULL)
    if (count > left) return refuse(409, 'count', stampsLeftMessage(left))
    const { state, pushId } = await applyEvent(transaction, pass, { ownerId, cardId, kind: 'stamp', count, stampsDelta: count, rewardsDelta: 0 })
    return { ok: true as const, pass: state, pushId }
  })
  if (!result.ok) return result
  // After the commit: the job must find the notification. Should this fail, the resume job sends it.
  if (result.pushId) await enqueuePushMessage(result.pushId)
  return { ok: true, pass: result.pass }
}

/** Takes back the pass's last stamp, if it is the newest event and at most UNDO_WINDOW_MS old. */
export async function undoLastStamp({ ownerId, cardId, passId }: { ownerId: string; cardId: string; passId: string }): Promise<StampingResult> {
  return getSequelize().transaction(async (transaction) => {
    const pass = await lockOwnedPass(transaction, { ownerId, cardId, reference: { passId } })
    if (!pass) return refuse(404, 'form', PASS_NOT_FOUND)
    const stamp = await undoableStamp(transaction, pass.id)
    if (!stamp) return refuse(409, 'form', UNDO_EXPIRED)
    const { state } = await applyEvent(transaction, pass, { ownerId, cardId, kind: 'undo', count: stamp.count, stampsDelta: -stamp.count, rewardsDelta: 0 })
    return { ok: true as const, pass: { ...state, undoUntil: null } }
  })
}

/** Redeems the earned reward: the stamps needed are taken off (a new round starts) and the rewards count grows. */
export async function redeemReward({ ownerId, cardId, passId }: { ownerId: string; cardId: string; passId: string }): Promise<StampingResult> {
  return getSequelize().transaction(async (transaction) => {
    const pass = await lockOwnedPass(transaction, { ownerId, cardId, reference: { passId } })
    if (!pass) return refuse(404, 'form', PASS_NOT_FOUND)
    if (pass.stamps < pass.stamps_required) return refuse(409, 'form', REWARD_NOT_EARNED)
    const { state } = await applyEvent(transaction, pass, {
      ownerId,
      cardId,
      kind: 'redeem',
      count: 1,
      stampsDelta: -pass.stamps_required,
      rewardsDelta: 1,
    })
    return { ok: true as const, pass: state }
  })
}

/** The pass as the scan page shows it after an action, or null when it is not a pass of the owner's card. */
export async function getPassStampState({ ownerId, cardId, passId }: { ownerId: string; cardId: string; passId: string }): Promise<PassStampState | null> {
  if (!isUuid(passId) || !isUuid(cardId)) return null
  const [row] = await getSequelize().query<LockedPass & { undo_until: Date | null }>(
    `select p.id, p.short_code, p.stamps, p.rewards_redeemed, c.stamps_required,
            (select case when e.kind = 'stamp' and e.created_at + make_interval(secs => :windowSeconds) > now()
                         then e.created_at + make_interval(secs => :windowSeconds) end
             from stamp_events e where e.pass_id = p.id order by e.id desc limit 1) as undo_until
     from passes p join cards c on c.id = p.card_id
     where p.id = :passId and p.card_id = :cardId and c.user_id = :ownerId`,
    { replacements: { passId, cardId, ownerId, windowSeconds: UNDO_WINDOW_MS / 1000 }, type: QueryTypes.SELECT },
  )
  return row ? stateOf(row, row.undo_until ? new Date(row.undo_until) : null) : null
}
