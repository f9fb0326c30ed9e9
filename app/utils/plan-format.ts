/** Cents as dollars for people: 1900 → "$19", 1950 → "$19.50". */
export function formatDollars(cents: number) {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: cents % 100 === 0 ? 0 : 2,
  }).format(cents / 100)
}

/** The plan both pricing pages highlight (Standard): the one most shops with a few offers or branches need. */
export const RECOMMENDED_TIER = 2

export const cardsText = (count: number) => `${count} active card${count === 1 ? '' : 's'}`
export const pushesText = (count: number) => `${count} push message${count === 1 ? '' : 's'} a month`
export const seatsText = (count: number) => `${count} staff login${count === 1 ? '' : 's'}`
export const periodText = (months: number) => (months === 12 ? 'yearly (12 months)' : 'monthly')

const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
/** Dates of plans and invoices: "26 November 2026" (UTC, as periods are computed). */
export const formatDate = (date: Date | string) => dateFormat.format(new Date(date))

export const STATUS_TEXT: Record<string, string> = {
  trial: 'Free trial',
  active: 'Active',
  cancelled: 'Cancelled (runs until the end of the period)',
  waiting_payment: 'Waiting for payment',
  ended: 'Ended',
}

/**
 * The Status row of the owner's plan page. The Plan row above it already reads "Free trial" during the trial, so
 * the trial's status is "Running" (never "Free trial" twice), and no stored code reaches the owner.
 */
export const ownerStatusText = (status: string) => (status === 'trial' ? 'Running' : (STATUS_TEXT[status] ?? 'Unknown'))

/**
 * Cards in use against the plan's limit. Without access the limit is 0, and "1 of 0" reads like an error: say
 * what it means instead. An unfinished draft holds a place but is not live: it is named, not passed off as active.
 */
export const cardUsageText = (used: number, limit: number, drafts = 0) => {
  const usage = limit > 0 ? `${used} of ${limit}` : `${used}, no new cards until you choose a plan`
  if (drafts === 0) return usage
  return `${usage} (${drafts === 1 ? '1 of them is an unfinished draft' : `${drafts} of them are unfinished drafts`})`
}

/** This month's push messages against the plan's; as with cards, a limit of 0 is said in words. */
export const pushUsageText = (used: number, limit: number) =>
  limit > 0 ? `${used} used of ${limit}` : `${used} used, none included until you choose a plan`
