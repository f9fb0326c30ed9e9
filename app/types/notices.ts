/*
 * An owner's in-app notices as the bell and the notifications page show them (models/notice.server.ts reads them):
 * here, so components know them without importing a model (decision 054).
 */

export type NoticeKind =
  | 'payment_confirmed'
  | 'trial_ending'
  | 'plan_ending'
  | 'push_finished'
  | 'first_holder'
  | 'first_card_ready'
  | 'team_invitation'
  | 'payment_failed'

/** A notice as the bell and the notifications page show it: no dedupe key, the time as an ISO string. */
export type NoticeView = {
  id: string
  kind: NoticeKind
  message: string
  link: string | null
  createdAt: string
  read: boolean
}

/** `unreadCount` is exact up to UNREAD_COUNT_CAP (the bell shows "99+" past 99), so its cost has a ceiling. */
export type NoticeSummary = { unreadCount: number; latest: NoticeView[] }
