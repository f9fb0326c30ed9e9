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
