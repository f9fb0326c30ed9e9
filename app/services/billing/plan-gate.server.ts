import { redirect } from '@remix-run/node'
import { type PlanState } from '#app/utils/plan-status.ts'
import { countActiveOwnerCards } from '#models/card.server.ts'
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

export const CARD_LIMIT_MESSAGE = (limit: number) =>
  limit === 0
    ? 'Your plan has ended, so you cannot create new cards. Choose a plan to create cards again.'
    : `Your plan includes ${limit} active ${limit === 1 ? 'card' : 'cards'}. Archive a card or choose a bigger plan to create another.`

export type CardSlot =
  { allowed: true } | { allowed: false; message: string; limit: number; active: number; ended: boolean }

/** Whether the owner may create one more card under their plan's card limit (archived cards do not count). */
export async function checkCardSlot(userId: string, now = new Date()): Promise<CardSlot> {
  const [state, active] = await Promise.all([requireOwnerPlanState(userId, now), countActiveOwnerCards(userId)])
  if (active < state.cardLimit) return { allowed: true }
  return {
    allowed: false,
    message: CARD_LIMIT_MESSAGE(state.cardLimit),
    limit: state.cardLimit,
    active,
    ended: state.subActiveFlag === 0,
  }
}
