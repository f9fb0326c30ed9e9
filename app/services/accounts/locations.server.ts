import { enqueueWalletUpdates } from '#app/server/job-queue.server.ts'
import {
  addOwnedLocation,
  removeOwnedLocation,
  updateOwnedLocation,
  type LocationFields,
} from '#models/locations.server.ts'

/**
 * The owner's locations as /account/locations changes them. A change moves the owner's cards' locations_changed_at
 * (migration 0014's trigger), which queues a push to each Apple Wallet pass in the same transaction: the job that
 * sends them is woken after the commit, as after a stamp or a card edit, rather than left to the resume job.
 * Should the wake-up fail, the resume job still sends them.
 */

/** Adds a location (see addOwnedLocation): its id, or 'limit' when the owner has `max` already. */
export async function addLocation(ownerId: string, fields: LocationFields, max: number) {
  const added = await addOwnedLocation(ownerId, fields, max)
  if (added !== 'limit') await enqueueWalletUpdates()
  return added
}

/** Saves the owner's location (see updateOwnedLocation): false when there is none. */
export async function updateLocation(ownerId: string, locationId: string, fields: LocationFields) {
  const saved = await updateOwnedLocation(ownerId, locationId, fields)
  if (saved) await enqueueWalletUpdates()
  return saved
}

/** Removes the owner's location (see removeOwnedLocation): its name, or null when there is none. */
export async function removeLocation(ownerId: string, locationId: string) {
  const name = await removeOwnedLocation(ownerId, locationId)
  if (name !== null) await enqueueWalletUpdates()
  return name
}
