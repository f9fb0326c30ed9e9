import { getOwnerSubscription } from '#models/subscription.server.ts'
import { getPublicUser } from '#models/user.server.ts'
import { planBox, planState } from './plan-status.ts'

/** What the account header shows on every /account page. */
export async function loadAccountHeader(userId: string, now = new Date()) {
  const [user, subscription] = await Promise.all([getPublicUser(userId), getOwnerSubscription(userId)])
  if (!user) throw new Response('Account not found', { status: 404 })
  if (!subscription) throw new Response('This account has no subscription', { status: 500 })
  const state = planState(subscription, now)
  return {
    user: { id: user.id, email: user.email, logoUrl: user.logoUrl },
    plan: { ...planBox(state), inTrial: state.inTrial },
  }
}

export type AccountHeaderData = Awaited<ReturnType<typeof loadAccountHeader>>
