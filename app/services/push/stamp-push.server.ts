import { progressOf, progressWords, rewardEarnedWords, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { oneToGoOrStampPushStatement, stampPushStatement } from '#models/automatic-push.server.ts'
import { type Statement } from '#models/transaction.server.ts'

/**
 * The holder's automatic push after a stamp (issue #6): "You got a stamp…", or "Reward earned…" when the stamp
 * completes the card (issue 19: the card's 'reward earned' automation, on with these words unless the owner changed
 * them), or 'one stamp to go' instead of the stamp push when the owner turned it on. None uses the owner's quota,
 * so none may become a free broadcast through a stamp-undo loop (docs/product/automations.md): at most one stamp push
 * (or 'one stamp to go') per pass in STAMP_PUSH_INTERVAL_MS, one reward push per pass per round and one 'one stamp to
 * go' per round (models/automatic-push.server.ts keeps them on the pass).
 */
export const STAMP_PUSH_INTERVAL_MS = 10 * 60 * 1000
/** What a phone's notification shows of a title and a body without cutting it itself. */
export const STAMP_PUSH_TITLE_MAX = 50
export const STAMP_PUSH_BODY_MAX = 180

/** The first `max` characters (code points, as the database's left() counted them, so no emoji is split). */
const cut = (text: string, max: number) => Array.from(text).slice(0, max).join('')

export type StampedPass = {
  /** The pass's stamps after this stamp, and the card's. */
  stamps: number
  stampsRequired: number
  businessName: string
  cardTitle: string
  reward: string
}

/** The push's title and its two possible bodies: the database picks by the row the stamp left (a stamp or a reward). */
export function stampPushTexts(pass: StampedPass, count: number) {
  const stamps = count === 1 ? 'a stamp' : `${count} stamps`
  const progress = progressOf(schemeOf(pass), pass.stamps)
  return {
    title: cut(pass.businessName || pass.cardTitle || 'Stampwise', STAMP_PUSH_TITLE_MAX),
    stampBody: cut(`You got ${stamps}: ${progressWords(progress)}`, STAMP_PUSH_BODY_MAX),
    rewardBody: cut(rewardEarnedWords(pass.reward || 'your reward'), STAMP_PUSH_BODY_MAX),
  }
}

/**
 * The statement that queues the push for a stamp just given to a pass of the owner's card, to run in the stamping
 * transaction that locked the pass, right after the stamp's own statement; it answers the notification id as `id`
 * (no row, or null, when the card has them off, no device listens or a limit holds). `pass.stamps` is the count the
 * stamp leaves (known before it runs: the pass is locked). A stamp that leaves one stamp to the reward may send
 * 'one stamp to go' instead (issue 19): the same single statement decides which, so no stamp takes an extra one.
 */
export function holderStampPushStatement({
  ownerId,
  cardId,
  passId,
  count,
  pass,
}: {
  ownerId: string
  cardId: string
  passId: string
  count: number
  pass: StampedPass
}): Statement {
  const { title, stampBody, rewardBody } = stampPushTexts(pass, count)
  const values = { ownerId, cardId, passId, title, stampBody, intervalSeconds: STAMP_PUSH_INTERVAL_MS / 1000 }
  return progressOf(schemeOf(pass), pass.stamps).oneToGo
    ? oneToGoOrStampPushStatement(values)
    : stampPushStatement({ ...values, rewardBody })
}
