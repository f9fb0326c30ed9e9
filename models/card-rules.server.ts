import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from './card.server.ts'

/**
 * A card's stamping rules (migration 0014: cards.max_stamps_per_scan, stamp_pause_minutes, daily_stamp_cap), as its
 * owner set them at /account/{cardId}/rules; the stamp checks them in its lock statement (models/stamping.server.ts).
 * Every statement is scoped by the card's owner. They are not part of what a pass in Wallet shows, so saving them
 * moves no pass (the 0010/0014 card triggers do not watch them).
 */
export type CardRules = {
  maxStampsPerScan: number
  /** 0: no pause. */
  stampPauseMinutes: number
  /** null: no daily cap. */
  dailyStampCap: number | null
}

/** The rules of one of the owner's cards; null for another owner's card or none. */
export async function getCardRules({ userId, cardId }: { userId: string; cardId: string }): Promise<CardRules | null> {
  if (!isUuid(cardId) || !isUuid(userId)) return null
  const [row] = await getSequelize().query<CardRules>(
    `select max_stamps_per_scan as "maxStampsPerScan", stamp_pause_minutes as "stampPauseMinutes",
            daily_stamp_cap as "dailyStampCap"
     from cards where id = :cardId and user_id = :userId`,
    { replacements: { cardId, userId }, type: QueryTypes.SELECT },
  )
  return row ?? null
}

/** Saves the rules of one of the owner's cards; false when it is not theirs (or is gone). */
export async function saveCardRules({ userId, cardId, ...rules }: { userId: string; cardId: string } & CardRules) {
  if (!isUuid(cardId) || !isUuid(userId)) return false
  const rows = await getSequelize().query<{ id: string }>(
    `update cards set max_stamps_per_scan = :maxStampsPerScan, stamp_pause_minutes = :stampPauseMinutes,
                      daily_stamp_cap = :dailyStampCap
     where id = :cardId and user_id = :userId returning id`,
    { replacements: { cardId, userId, ...rules }, type: QueryTypes.SELECT },
  )
  return rows.length > 0
}
