import { redirect } from '@remix-run/node'
import { type PlanState } from '#app/utils/plan-status.ts'
import { countOwnerCardPlaces } from '#models/card.server.ts'
import { requireOwnerPlanState } from './plan.server.ts'

/**
 * The specification's gate for the push_notification pages (base, create, template, template create, confirm):
 * open while the owner has access (trial, paid or cancelled-but-running plan) or additional quota remains;
 * otherwise to /account/limits_trial. History is never gated.
 */
export async function requirePushAccess(userId: string, now = new Date()): Promise<PlanState> {
  const state = await requireOwnerPlanState(userId, now)
  if (!state.canUsePush) throw redirect('/account/limits_trial')
  return state
}

/** Why no new card: the plan's limit is reached (an unfinished draft holds a place too, and is named then). */
export const CARD_LIMIT_MESSAGE = (limit: number, drafts = 0) =>
  limit === 0
    ? 'Your plan has ended, so you cannot create new cards. Choose a plan to create cards again.'
    : `Your plan includes ${limit} active ${limit === 1 ? 'card' : 'cards'}. Archive a card or choose a bigger plan to create another.${drafts > 0 ? ` ${DRAFT_PLACE}` : ''}`

const DRAFT_PLACE = 'An unfinished draft holds a place too: finish or delete it.'

export type CardSlot =
  { allowed: true } | { allowed: false; message: string; limit: number; active: number; ended: boolean }

/** Whether the owner may create one more card under their plan's card limit (archived cards do not count). */
export async function checkCardSlot(userId: string, now = new Date()): Promise<CardSlot> {
  const [state, places] = await Promise.all([requireOwnerPlanState(userId, now), countOwnerCardPlaces(userId)])
  if (places.used < state.cardLimit) return { allowed: true }
  return {
    allowed: false,
    message: CARD_LIMIT_MESSAGE(state.cardLimit, places.drafts),
    limit: state.cardLimit,
    active: places.used,
    ended: state.subActiveFlag === 0,
  }
}
