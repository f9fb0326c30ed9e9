import { type ActivityRow } from '#models/activity.server.ts'

/**
 * Who did an event and where, in the owner's words. The owner is 'You' on the page ('Owner' in the CSV, which is
 * read by others); a staff member by the name the owner gave them, '(removed)' once removed; an admin who acted on
 * the card (the admin's card pages) as Stampwise support; an account deleted since as 'Unknown'.
 */
export const SUPPORT_NAME = 'Stampwise support'
export const UNKNOWN_PERSON = 'Unknown'
export const NO_LOCATION_LABEL = 'No location'

export const removedLabel = (name: string, removed: boolean) => (removed ? `${name} (removed)` : name)

type Who = Pick<ActivityRow, 'actor_id' | 'actor_role' | 'staff_name' | 'actor_employer_id' | 'actor_removed'>
type Where = Pick<ActivityRow, 'location_name' | 'location_removed'>

export function personLabel(row: Who, ownerId: string, owner = 'You'): string {
  if (row.actor_id === ownerId) return owner
  if (row.actor_role === 'staff' && row.actor_employer_id === ownerId && row.staff_name) {
    return removedLabel(row.staff_name, row.actor_removed)
  }
  if (row.actor_role === 'admin') return SUPPORT_NAME
  return UNKNOWN_PERSON
}

export const locationLabel = (row: Where) =>
  row.location_name === null ? NO_LOCATION_LABEL : removedLabel(row.location_name, row.location_removed)
