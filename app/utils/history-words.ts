import { pushStatusText } from './push-status.ts'

/**
 * The history page's words for what the sent-message status words (push-status.ts) do not cover: a scheduled
 * broadcast that was cancelled, or not sent (and why), and an automatic message's day of counts. Pure.
 */
export const SKIPPED_REASON_TEXT: Record<string, string> = {
  no_quota: 'No messages left this month',
  plan_ended: 'Your plan had ended',
  daily_cap: 'Over the limit a day',
  weekly_cap: 'Over the limit a week',
}

/** A broadcast's badge in the history. */
export function broadcastStatusText(item: { status: string; sent: number; failed: number; pending: number }) {
  if (item.status === 'skipped') return 'Not sent'
  if (item.status === 'cancelled') return 'Cancelled'
  return pushStatusText(item)
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

/** "12 messages · 10 delivered · 1 failed · 1 pending" for one kind's day. */
export function automaticCountsText(counts: { messages: number; sent: number; failed: number; pending: number }) {
  return `${plural(counts.messages, 'message', 'messages')} · ${counts.sent} delivered · ${counts.failed} failed · ${counts.pending} pending`
}

/** "2 not sent: over a holder's limit · 1 not sent: plan ended", or null when none was skipped. */
export function automaticSkippedText(counts: { skippedCap: number; skippedPlan: number }) {
  const parts = [
    counts.skippedCap ? `${counts.skippedCap} not sent: over a holder’s limit` : null,
    counts.skippedPlan ? `${counts.skippedPlan} not sent: plan ended` : null,
  ].filter(Boolean)
  return parts.length ? parts.join(' · ') : null
}
