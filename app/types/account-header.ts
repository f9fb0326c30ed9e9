import { type NoticeSummary } from './notices.ts'

/*
 * What the account header shows on every /account page (app/services/accounts/account-header.server.ts loads it):
 * here, so the header component knows it without importing a service (decision 054).
 */
export type AccountHeaderData = {
  user: { id: string; email: string; logoUrl: string | null }
  /** The plan box's two lines (docs/product/plans-and-limits.md); in the trial the menu hides "Plan details". */
  plan: { title: string; subtitle: string; inTrial: boolean }
  notices: NoticeSummary
  /** The id of a recent unread notice worth confetti, or null. */
  celebration: string | null
}
