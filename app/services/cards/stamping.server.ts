import { enqueueWalletUpdates, enqueuePushMessage, type WalletsToUpdate } from '#app/server/job-queue.server.ts'
import { holderStampPushStatement } from '#app/services/push/stamp-push.server.ts'
import { type PassStampState } from '#app/types/stamping.ts'
import { nextStampWhen } from '#app/utils/stamping-rules.ts'
import { isUuid } from '#app/utils/uuid.ts'
import {
  applyEventAndCommit,
  getPassOfOwnedCard,
  lockPassOfOwnedCard,
  undoableStampOfLockedPass,
  type LockedPass,
  type StampEvent,
} from '#models/stamping.server.ts'
import { withBatchedTransaction, type BatchedTransaction } from '#models/transaction.server.ts'
import { progressOf, redeemEffect, schemeOf, stampEffect, undoEffect } from './loyalty-scheme.ts'

/**
 * Stamping (issue #5, item 5): the owner stamps a pass of one of their cards by its short code, undoes the last
 * stamp within UNDO_WINDOW_MS, and redeems the reward, which starts a new round. Each operation is one transaction
 * that locks the pass row (models/stamping.server.ts), so parallel requests on one pass queue instead of losing or
 * doubling a stamp. What each does to the round is the loyalty scheme's (loyalty-scheme.ts).
 */
export const UNDO_WINDOW_MS = 2 * 60 * 1000
export const MAX_STAMPS_AT_ONCE = 20
export const NO_CARD_WITH_THIS_CODE = 'No card with this code'
export const CARD_FULL = 'All stamps collected: redeem the reward first'
export const UNDO_EXPIRED = 'The last stamp can no longer be undone'
export const REWARD_NOT_EARNED = 'The reward is not earned yet'
export const PASS_NOT_FOUND = 'Pass not found'
export const stampsLeftMessage = (left: number) =>
  left === 1 ? 'Only 1 stamp left on this card' : `Only ${left} stamps left on this card`

const UNDO_WINDOW_SECONDS = UNDO_WINDOW_MS / 1000

/** The stamping rules of a card (migration 0014; docs/product/staff-locations-rules.md). */
export type StampingRule = 'per_scan' | 'pause' | 'daily_cap'

export type StampingRefusal = {
  ok: false
  status: 400 | 404 | 409
  field: 'code' | 'count' | 'form'
  message: string
  /** A stamping rule refused: the owner (never staff) may tick 'override' and stamp anyway. The first of `rules`. */
  rule?: StampingRule
  /** Every rule that refused this scan, each named in `message`: the owner's override passes all of them. */
  rules?: StampingRule[]
  /** When the next stamp is possible under all of them (null: now, with fewer stamps). */
  nextStampAt?: Date | null
  /** A rule's refusal: the pass as it stands (the scan page shows its stamps). */
  pass?: PassStampState
}
export type StampingResult = { ok: true; pass: PassStampState } | StampingRefusal

const refuse = (
  status: StampingRefusal['status'],
  field: StampingRefusal['field'],
  message: string,
): StampingRefusal => ({
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

export const perScanMessage = (max: number) =>
  max === 1 ? 'This card allows 1 stamp per scan.' : `This card allows at most ${max} stamps per scan.`
const stampsADay = (cap: number) => `${cap} ${cap === 1 ? 'stamp' : 'stamps'} a day`

/**
 * The card's stamping rules against this scan: every rule that refuses it, in one refusal, or null. All of them,
 * because the owner's override passes every rule that refuses: a refusal naming only one would have the owner
 * override rules never shown, and staff retry into the next one (ADR 046). The words give ONE time, the one that
 * applies (issue 30, item 4): the time-based rules (pause, a reached daily cap) share one sentence ending with when
 * the last of them allows a stamp; a daily cap with stamps left and the per-scan limit are sentences of their own.
 * `rule` is the first that refuses (pause, then daily cap, then per scan), `nextStampAt` that time (null: now, with
 * fewer stamps). The caller checked the count against the stamps left first.
 */
export function ruleRefusal(pass: LockedPass, count: number, now = new Date(pass.now)): StampingRefusal | null {
  const rules: { rule: StampingRule; field: StampingRefusal['field'] }[] = []
  const waits: { reason: string; at: Date }[] = []
  const sentences: string[] = []
  if (pass.pause_until && new Date(pass.pause_until) > now) {
    rules.push({ rule: 'pause', field: 'code' })
    waits.push({ reason: 'This card was stamped recently', at: new Date(pass.pause_until) })
  }
  const cap = pass.daily_stamp_cap
  let capLeftAt: Date | null = null
  if (cap !== null && pass.next_day_at && (pass.stamps_today ?? 0) + count > cap) {
    const left = cap - (pass.stamps_today ?? 0)
    rules.push({ rule: 'daily_cap', field: left > 0 ? 'count' : 'code' })
    if (left > 0) {
      sentences.push(`Daily limit of ${stampsADay(cap)}: only ${left} more today`)
      capLeftAt = new Date(pass.next_day_at)
    } else {
      const reason = waits.length
        ? `it has reached its daily limit (${stampsADay(cap)})`
        : `Daily limit reached (${stampsADay(cap)})`
      waits.push({ reason, at: new Date(pass.next_day_at) })
    }
  }
  if (count > pass.max_stamps_per_scan) {
    rules.push({ rule: 'per_scan', field: 'count' })
    sentences.push(perScanMessage(pass.max_stamps_per_scan).slice(0, -1))
  }
  const [first] = rules
  if (!first) return null
  const nextStampAt = waits.length ? new Date(Math.max(...waits.map(({ at }) => at.getTime()))) : null
  const when = (at: Date) => nextStampWhen(at, pass.time_zone, now)
  if (nextStampAt) {
    sentences.unshift(
      `${waits.map(({ reason }) => reason).join(' and ')}: the next stamp is possible at ${when(nextStampAt)}`,
    )
  } else if (capLeftAt) {
    // No other time on the page: when the day's stamps come back is the one that applies.
    sentences[0] = `${sentences[0]!}, more from ${when(capLeftAt)}`
  }
  return {
    ...refuse(
      409,
      first.field,
      sentences.map((sentence) => (sentence.endsWith('.') ? sentence : `${sentence}.`)).join(' '),
    ),
    rule: first.rule,
    rules: rules.map(({ rule }) => rule),
    nextStampAt,
  }
}

type PassCounters = Pick<LockedPass, 'id' | 'short_code' | 'stamps' | 'rewards_redeemed' | 'stamps_required'>

/** The scheme of the pass's card (its reward only where the pass carries it). */
const schemeOfPass = (pass: Pick<LockedPass, 'stamps_required'> & { reward?: string }) =>
  schemeOf({ stampsRequired: pass.stamps_required, reward: pass.reward })

function stateOf(pass: PassCounters, undoUntil: Date | null): PassStampState {
  return {
    passId: pass.id,
    shortCode: pass.short_code,
    stamps: pass.stamps,
    stampsRequired: pass.stamps_required,
    rewardsRedeemed: pass.rewards_redeemed,
    rewardEarned: progressOf(schemeOfPass(pass), pass.stamps).earned,
    undoUntil,
  }
}

/**
 * Records the event on the locked pass and commits; answers the pass as it now is and, for a stamp, until when it can
 * be undone, with the holder's automatic push it queued (in the same round trip: stamp-push.server.ts).
 */
async function applyEvent(
  transaction: BatchedTransaction,
  pass: LockedPass,
  event: StampEvent,
): Promise<{ state: PassStampState; pushId: string | null; wallets: WalletsToUpdate }> {
  // The holder's automatic push: only for a stamp, and within its limits. The pass is locked, so the stamps this
  // stamp leaves are known before it runs.
  const push =
    event.kind === 'stamp'
      ? holderStampPushStatement({
          ownerId: event.ownerId,
          cardId: event.cardId,
          passId: pass.id,
          count: event.count,
          pass: {
            stamps: pass.stamps + event.stampsDelta,
            stampsRequired: pass.stamps_required,
            businessName: pass.business_name,
            cardTitle: pass.title,
            reward: pass.reward,
          },
        })
      : null
  const row = await applyEventAndCommit(transaction, pass.id, event, push ? [push] : [])
  const undoUntil = event.kind === 'stamp' ? new Date(new Date(row.created_at).getTime() + UNDO_WINDOW_MS) : null
  const pushId = (row.then[0]?.[0]?.id as string | null | undefined) ?? null
  return {
    state: stateOf({ ...pass, stamps: row.stamps, rewards_redeemed: row.rewards_redeemed }, undoUntil),
    pushId,
    wallets: { apple: row.in_apple_wallet, google: row.in_google_wallet },
  }
}

/**
 * Who stamps and where (migration 0014): the owner themself (the default), an admin, or a staff member of the owner
 * (`staff`: they may undo only their own stamps and never override a rule). `locationId` must already be checked as
 * one of the owner's locations the actor may use (or null when the business has none).
 */
export type StampActor = { actorId?: string; locationId?: string | null; staff?: boolean }

/** Gives `count` stamps (1–20) to the pass with this code on the owner's card. */
export async function stampPass({
  ownerId,
  cardId,
  code,
  count = 1,
  actorId = ownerId,
  locationId = null,
  override = false,
}: {
  ownerId: string
  cardId: string
  code: string
  count?: number
  /** The owner's tick past a stamping rule; ignored for staff (their callers never pass it). */
  override?: boolean
} & Omit<StampActor, 'staff'>): Promise<StampingResult> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_STAMPS_AT_ONCE) {
    return refuse(400, 'count', `Give between 1 and ${MAX_STAMPS_AT_ONCE} stamps at once`)
  }
  const result = await withBatchedTransaction(async (transaction) => {
    const pass = await lockPassOfOwnedCard(transaction, { ownerId, cardId, reference: parsePassReference(code) })
    // Unknown, or a pass of another card (this owner's or not): the same answer, so no code reveals another holder.
    if (!pass) return refuse(404, 'code', NO_CARD_WITH_THIS_CODE)
    const effect = stampEffect(schemeOfPass(pass), pass.stamps, count)
    if (!effect.ok) {
      return effect.reason === 'full'
        ? refuse(409, 'code', CARD_FULL)
        : refuse(409, 'count', stampsLeftMessage(effect.left))
    }
    // The owner's tick stamps past a rule, and is recorded only when a rule would have refused.
    const refusal = ruleRefusal(pass, count)
    // The card as it stands goes with the refusal: the page shows the customer's stamps, not an empty card.
    if (refusal && !override) return { ...refusal, pass: stateOf(pass, null) }
    const { state, pushId, wallets } = await applyEvent(transaction, pass, {
      ownerId,
      actorId,
      locationId,
      overridden: refusal !== null,
      cardId,
      kind: 'stamp',
      count,
      stampsDelta: effect.stampsDelta,
      rewardsDelta: effect.rewardsDelta,
    })
    return { ok: true as const, pass: state, pushId, wallets }
  })
  if (!result.ok) return result
  // After the commit: the job must find the notification. Should this fail, the resume job sends it.
  if (result.pushId) await enqueuePushMessage(result.pushId)
  // The stamp queued the updates of the wallets the pass is in, in its transaction (0010, 0011): send them now.
  await enqueueWalletUpdates(result.wallets)
  return { ok: true, pass: result.pass }
}

type PassAction = { ownerId: string; cardId: string; passId: string } & StampActor

const actorOf = (action: PassAction) => ({
  actorId: action.actorId ?? action.ownerId,
  locationId: action.locationId ?? null,
  overridden: false,
})

/** Runs an action on one pass of the owner's card, locked for the transaction; 404 when it is not theirs. */
async function withLockedPass(
  { ownerId, cardId, passId }: PassAction,
  work: (transaction: BatchedTransaction, pass: LockedPass) => Promise<WalletChange>,
): Promise<StampingResult> {
  const result = await withBatchedTransaction(async (transaction) => {
    const pass = await lockPassOfOwnedCard(transaction, { ownerId, cardId, reference: { passId } })
    return pass ? work(transaction, pass) : refuse(404, 'form', PASS_NOT_FOUND)
  })
  if (!result.ok) return result
  // The change queued the updates of the wallets the pass is in, in its transaction (0010, 0011): send them now.
  await enqueueWalletUpdates(result.wallets)
  return { ok: true, pass: result.pass }
}

/** An undo's or a redemption's outcome, with the wallets it queued updates for. */
type WalletChange = StampingRefusal | { ok: true; pass: PassStampState; wallets: WalletsToUpdate }

/** Takes back the pass's last stamp, if it is the newest event and at most UNDO_WINDOW_MS old. */
export function undoLastStamp(action: PassAction): Promise<StampingResult> {
  return withLockedPass(action, async (transaction, pass) => {
    const stamp = await undoableStampOfLockedPass(transaction, {
      passId: pass.id,
      windowSeconds: UNDO_WINDOW_SECONDS,
      byActor: action.staff ? action.actorId : undefined,
    })
    if (!stamp) return refuse(409, 'form', UNDO_EXPIRED)
    const { state, wallets } = await applyEvent(transaction, pass, {
      ownerId: action.ownerId,
      ...actorOf(action),
      cardId: action.cardId,
      kind: 'undo',
      count: stamp.count,
      ...undoEffect(stamp.count),
    })
    return { ok: true as const, pass: { ...state, undoUntil: null }, wallets }
  })
}

/** Redeems the earned reward: the stamps needed are taken off (a new round starts) and the rewards count grows. */
export function redeemReward(action: PassAction): Promise<StampingResult> {
  return withLockedPass(action, async (transaction, pass) => {
    const effect = redeemEffect(schemeOfPass(pass), pass.stamps)
    if (!effect.ok) return refuse(409, 'form', REWARD_NOT_EARNED)
    const { state, wallets } = await applyEvent(transaction, pass, {
      ownerId: action.ownerId,
      ...actorOf(action),
      cardId: action.cardId,
      kind: 'redeem',
      count: 1,
      stampsDelta: effect.stampsDelta,
      rewardsDelta: effect.rewardsDelta,
    })
    return { ok: true as const, pass: state, wallets }
  })
}

/**
 * The pass as the scan page shows it after an action, or null when it is not a pass of the owner's card. With
 * `undoableBy` (a staff member, who may undo only their own stamp) the undo window shows only on that one's stamp.
 */
export async function getPassStampState({
  ownerId,
  cardId,
  passId,
  undoableBy,
}: {
  ownerId: string
  cardId: string
  passId: string
  undoableBy?: string
}): Promise<PassStampState | null> {
  const row = await getPassOfOwnedCard({ ownerId, cardId, passId, windowSeconds: UNDO_WINDOW_SECONDS })
  if (!row) return null
  const undoable = row.undo_until && (!undoableBy || row.undo_actor_id === undoableBy)
  return stateOf(row, undoable ? new Date(row.undo_until!) : null)
}
