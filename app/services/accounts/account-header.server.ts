import { notFound } from '#app/server/http-errors.server.ts'
import { type AccountHeaderData } from '#app/types/account-header.ts'
import { planBox, planState } from '#app/utils/plan-status.ts'
import { getNoticeSummary, type NoticeView } from '#models/notice.server.ts'
import { ensureOwnerSubscription } from '#models/subscription.server.ts'
import { getPublicUser } from '#models/user.server.ts'

/** What the account header shows on every /account page. */
export async function loadAccountHeader(userId: string, now = new Date()): Promise<AccountHeaderData> {
  const [user, subscription, notices] = await Promise.all([
    getPublicUser(userId),
    ensureOwnerSubscription(userId),
    getNoticeSummary(userId),
  ])
  if (!user) throw notFound('Account not found')
  if (!subscription) throw notFound('Account not found')
  const state = planState(subscription, now)
  return {
    user: { id: user.id, email: user.email, logoUrl: user.logoUrl },
    plan: { ...planBox(state), inTrial: state.inTrial },
    notices,
    celebration: celebrationOccasion(notices.latest, now),
  }
}

const CELEBRATED_KINDS = new Set(['payment_confirmed', 'first_card_ready'])
const CELEBRATION_WINDOW_MS = 2 * 24 * 60 * 60 * 1000

/** A recent unread notice worth confetti (a plan became active, the first card is ready), or null. */
function celebrationOccasion(latest: NoticeView[], now: Date): string | null {
  const occasion = latest.find(
    (notice) =>
      !notice.read &&
      CELEBRATED_KINDS.has(notice.kind) &&
      now.getTime() - new Date(notice.createdAt).getTime() < CELEBRATION_WINDOW_MS,
  )
  return occasion?.id ?? null
}
