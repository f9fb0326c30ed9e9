import { enqueueTimeZoneRebuild } from '#app/server/job-queue.server.ts'
import { logger } from '#app/server/logger.server.ts'
import {
  listOwnerCardIds,
  rebuildCardJoins,
  rebuildPassDaysChunk,
  rebuildRemovedHoldersPassDays,
} from '#models/insights-rebuild.server.ts'
import { withTransaction } from '#models/transaction.server.ts'
import { getOwnerTimeZone, isTimeZoneKnownToDatabase, setOwnerTimeZone } from '#models/user.server.ts'

/**
 * The business's time zone changes, and with it every day of its figures (docs/product/insights-and-exports.md, "Time
 * zone" and "Scale"): the new zone is stored and the rebuild of its pass_days is queued in one transaction, so a zone
 * is never saved without its rebuild (nor a rebuild run before the zone it is for has committed). From that commit on,
 * the trigger files new stamps under the new zone's days; the job rebuilds what came before.
 */
export const PASSES_PER_CHUNK = 1000

export type TimeZoneChange = { status: 'unknown' } | { status: 'unchanged' } | { status: 'changed' }

/** `timeZone`: canonical (canonicalTimeZone). A zone the database does not know is refused, like a misspelt one. */
export async function changeOwnerTimeZone(userId: string, timeZone: string): Promise<TimeZoneChange> {
  if (!(await isTimeZoneKnownToDatabase(timeZone))) return { status: 'unknown' }
  const changed = await withTransaction(async (transaction) => {
    if (!(await setOwnerTimeZone(userId, timeZone, transaction))) return false
    await enqueueTimeZoneRebuild(userId, transaction)
    return true
  })
  return { status: changed ? 'changed' : 'unchanged' }
}

/**
 * The job: every card of the owner, its passes in id order, PASSES_PER_CHUNK at a time (one short transaction
 * each, see models/insights-rebuild.server.ts), then its removed holders' rows. rebuild_pass_days reads the zone
 * when each chunk runs, so a rebuild that overlaps a later change still ends right: the later change queued a
 * rebuild of its own, which redoes every chunk after this one's. Last, the card's new holders per day
 * (card_days.joins).
 */
export async function rebuildOwnerPassDays(userId: string): Promise<{ cards: number; passes: number }> {
  const startedAt = Date.now()
  const timeZone = await getOwnerTimeZone(userId)
  const cardIds = await listOwnerCardIds(userId)
  logger.info({ userId, timeZone, cards: cardIds.length }, 'time zone rebuild started')
  let passes = 0
  for (const cardId of cardIds) {
    let afterPassId: string | null = null
    for (;;) {
      const chunk = await rebuildPassDaysChunk({ cardId, afterPassId, limit: PASSES_PER_CHUNK })
      passes += chunk.passes
      if (chunk.passes < PASSES_PER_CHUNK) break
      afterPassId = chunk.lastPassId
    }
    await rebuildRemovedHoldersPassDays(cardId)
    await rebuildCardJoins(cardId)
  }
  logger.info(
    { userId, timeZone, cards: cardIds.length, passes, ms: Date.now() - startedAt },
    'time zone rebuild finished',
  )
  return { cards: cardIds.length, passes }
}
