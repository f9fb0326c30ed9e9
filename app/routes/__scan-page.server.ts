import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data } from '@remix-run/node'
import { readFormData } from '#app/server/form-data.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { progressOf, progressWords, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { locationChoice, rememberLocation, resolveLocation } from '#app/services/cards/scan-location.server.ts'
import {
  getPassStampState,
  redeemReward,
  stampPass,
  undoLastStamp,
  type StampingResult,
  type StampingRule,
} from '#app/services/cards/stamping.server.ts'
import { CARD_DESIGN_FIELDS, pickFields } from '#app/utils/card-design-fields.ts'
import { isStampIntent, PassActionSchema, StampSchema, type StampIntent } from '#app/utils/stamping.ts'

/**
 * The scan page's loader and action, shared by the owner's /account/{cardId}/scan and the staff's
 * /staff/{cardId}/scan (docs/product/staff-locations-rules.md). The two differ only in who acts:
 * staff act on their employer's cards, undo only their own stamp, and never override a stamping rule.
 */
export type ScanActor = { kind: 'owner'; ownerId: string } | { kind: 'staff'; ownerId: string; staffId: string }

const actorId = (actor: ScanActor) => (actor.kind === 'staff' ? actor.staffId : actor.ownerId)
const locationActor = (actor: ScanActor) =>
  actor.kind === 'staff' ? { ownerId: actor.ownerId, staffId: actor.staffId } : { ownerId: actor.ownerId }

/** The card, the pass the last action touched (`?pass=`, after post/redirect/get), and the location choice. */
export async function loadScanPage(request: Request, actor: ScanActor, cardIdParam: string | undefined) {
  const card = await requireOwnedCard(actor.ownerId, cardIdParam)
  const url = new URL(request.url)
  const passId = url.searchParams.get('pass')
  // Staff may undo only their own stamp: Undo shows to them only when the newest event is theirs.
  const undoableBy = actor.kind === 'staff' ? actor.staffId : undefined
  const pass = passId ? await getPassStampState({ ownerId: actor.ownerId, cardId: card.id, passId, undoableBy }) : null
  const { locations, current } = await locationChoice(request, locationActor(actor))
  return {
    card: {
      id: card.id,
      ...pickFields(card, CARD_DESIGN_FIELDS),
      reward: card.reward,
      logoUrl: card.logoUrl,
    },
    pass: pass ? { ...pass, undoUntil: pass.undoUntil?.toISOString() ?? null } : null,
    // Redeem's confirmation step (a plain link, so it works without JavaScript); only an earned reward has one.
    confirmRedeem: url.searchParams.get('confirm') === 'redeem' && Boolean(pass?.rewardEarned),
    locations,
    locationId: current?.id ?? null,
    mayOverride: actor.kind === 'owner',
  }
}

export type ScanActionData = {
  intent: StampIntent
  result: SubmissionResult<string[]>
  /** A stamping rule refused the stamp: the owner may tick 'override'; when the next stamp is possible. */
  rule?: StampingRule
  /** That rule's refusal: why, and when the next stamp is possible. */
  refusal?: string
  nextStampAt?: string | null
  refusedPass?: { shortCode: string; stamps: number; stampsRequired: number } | null
}

/**
 * Stamp (by code), Undo and Redeem (the shown pass), told apart by `intent`; refusals come back as field errors.
 * The models scope every change by owner and card, so a success proves the card is the owner's: the card is looked
 * up only before answering anything else (404 for another owner's card, never their holders' details).
 */
export async function scanAction(request: Request, actor: ScanActor, cardIdParam: string | undefined) {
  const cardId = cardIdParam ?? ''
  const { ownerId } = actor
  const refuse = async (answer: ScanActionData, status: number) => {
    await requireOwnedCard(ownerId, cardId)
    return data<ScanActionData>(answer, { status })
  }
  // A body that is not a form (JSON, say) reads as an empty form: 400 below, not 500.
  const formData = await readFormData(request)
  // An intent sent twice is no intent: the schemas below would refuse it on a field no form shows.
  const intents = formData.getAll('intent')
  const intent = intents.length === 1 ? intents[0] : null
  if (!isStampIntent(intent)) {
    const submission = parseWithZod(formData, { schema: StampSchema })
    return refuse({ intent: 'stamp', result: submission.reply({ formErrors: ['Unknown action'] }) }, 400)
  }
  const who = { actorId: actorId(actor) }
  if (intent === 'stamp') {
    const submission = parseWithZod(formData, { schema: StampSchema })
    if (submission.status !== 'success') return refuse({ intent, result: submission.reply() }, 400)
    const where = await resolveLocation(request, submission.value.locationId)
    if (!where.ok)
      return refuse({ intent, result: submission.reply({ fieldErrors: { locationId: [where.message] } }) }, 400)
    const count = submission.value.count ?? 1
    const outcome = await stampPass({
      ownerId,
      cardId,
      code: submission.value.code,
      count,
      ...who,
      locationId: where.locationId,
      // Only the owner may stamp past a rule (docs/product/staff-locations-rules.md); a staff member's tick is ignored.
      override: actor.kind === 'owner' && submission.value.override === true,
    })
    if (!outcome.ok && outcome.rule)
      // A stamping rule refused: the message (why and when) stands beside the form rather than as a field's error,
      // which the browser's own check would clear as soon as the owner ticks the override (and move the button).
      return refuse(
        {
          intent,
          result: submission.reply(),
          rule: outcome.rule,
          refusal: outcome.message,
          nextStampAt: outcome.nextStampAt?.toISOString() ?? null,
          refusedPass: outcome.pass
            ? {
                shortCode: outcome.pass.shortCode,
                stamps: outcome.pass.stamps,
                stampsRequired: outcome.pass.stampsRequired,
              }
            : null,
        },
        outcome.status,
      )
    if (!outcome.ok)
      return refuse(
        { intent, result: submission.reply({ fieldErrors: { [outcome.field]: [outcome.message] } }) },
        outcome.status,
      )
    return afterSuccess(actor, cardId, outcome, `${stampWord(count)} given`, where.locationId)
  }
  const submission = parseWithZod(formData, { schema: PassActionSchema })
  if (submission.status !== 'success') return refuse({ intent, result: submission.reply() }, 400)
  const where = await resolveLocation(request, submission.value.locationId)
  if (!where.ok) return refuse({ intent, result: submission.reply({ formErrors: [where.message] }) }, 400)
  const input = {
    ownerId,
    cardId,
    passId: submission.value.passId,
    ...who,
    locationId: where.locationId,
    staff: actor.kind === 'staff',
  }
  const outcome = intent === 'undo' ? await undoLastStamp(input) : await redeemReward(input)
  if (!outcome.ok)
    return refuse({ intent, result: submission.reply({ formErrors: [outcome.message] }) }, outcome.status)
  const what = intent === 'undo' ? 'Stamp undone' : 'Reward redeemed: a new round starts'
  return afterSuccess(actor, cardId, outcome, what, where.locationId)
}

export const scanPagePath = (actor: ScanActor, cardId: string) =>
  actor.kind === 'staff' ? `/staff/${cardId}/scan` : `/account/${cardId}/scan`

const stampWord = (count: number) => (count === 1 ? '1 stamp' : `${count} stamps`)

/** Back to the same scan page with the pass shown; the location used is remembered on this device. */
async function afterSuccess(
  actor: ScanActor,
  cardId: string,
  outcome: Extract<StampingResult, { ok: true }>,
  what: string,
  locationId: string | null,
) {
  const { pass } = outcome
  const earned = pass.rewardEarned ? ' Reward earned!' : ''
  const stamps = progressWords(progressOf(schemeOf(pass), pass.stamps))
  const headers = locationId ? { 'Set-Cookie': await rememberLocation(locationId) } : undefined
  return redirectWithToast(
    `${scanPagePath(actor, cardId)}?pass=${pass.passId}`,
    { message: `${what}: ${stamps} on ${pass.shortCode}.${earned}` },
    { headers },
  )
}
