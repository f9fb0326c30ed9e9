import { isUuid } from './card.server.ts'
import { getHolderProfile, type HolderProfile } from './holder-profile.server.ts'
import { listHolderMessages, type HolderMessage } from './holders.server.ts'
import { selectRows } from './transaction.server.ts'

/**
 * What Stampwise keeps about the holder of a pass (issue 34, "The holder's own data"): the card and its progress, the
 * details they gave, their stamps and redemptions, the messages that reached them and the devices that hear from
 * the card. The pass id is the capability; the card's owner is read from the pass, so the messages are that card's.
 */
export type HolderData = {
  card: { businessName: string; title: string }
  pass: {
    shortCode: string
    stamps: number
    rewardsRedeemed: number
    joinedAt: Date
    lastStampedAt: Date | null
  }
  profile: HolderProfile | null
  history: { kind: 'stamp' | 'undo' | 'redeem'; count: number; at: Date }[]
  messages: HolderMessage[]
  devices: { browsers: number; appleWallet: number; googleWallet: boolean }
}

/** Messages listed in the export and on the page at most (a holder of years hears a few a week). */
export const HOLDER_DATA_MESSAGES_MAX = 1_000

/** The holder's data, with the card's id (for the caller's check; not part of the data). */
export async function getHolderData(passId: string): Promise<{ cardId: string; data: HolderData } | null> {
  if (!isUuid(passId)) return null
  const [row] = await selectRows<{
    cardId: string
    userId: string
    businessName: string
    title: string
    shortCode: string
    stamps: number
    rewardsRedeemed: number
    joinedAt: Date
    lastStampedAt: Date | null
    browsers: number
    appleWallet: number
    googleWallet: boolean
  }>(
    `select c.id as "cardId", c.user_id as "userId", c.business_name as "businessName", c.title,
            p.short_code as "shortCode", p.stamps, p.rewards_redeemed as "rewardsRedeemed", p.created_at as "joinedAt",
            p.last_stamped_at as "lastStampedAt",
            (select count(*)::int from push_subscriptions s where s.pass_id = p.id) as browsers,
            (select count(*)::int from apple_registrations r where r.pass_id = p.id) as "appleWallet",
            exists(select 1 from google_wallet_objects o where o.pass_id = p.id and o.state = 'active') as "googleWallet"
     from passes p join cards c on c.id = p.card_id where p.id = :passId`,
    { passId },
  )
  if (!row) return null
  const [profile, history, { messages }] = await Promise.all([
    getHolderProfile(passId),
    selectRows<{ kind: 'stamp' | 'undo' | 'redeem'; count: number; at: Date }>(
      `select kind, count, created_at as at from stamp_events where pass_id = :passId order by created_at, id`,
      { passId },
    ),
    listHolderMessages({ cardId: row.cardId, userId: row.userId, passId }, HOLDER_DATA_MESSAGES_MAX),
  ])
  const { businessName, title, shortCode, stamps, rewardsRedeemed, joinedAt, lastStampedAt } = row
  return {
    cardId: row.cardId,
    data: {
      card: { businessName, title },
      pass: { shortCode, stamps, rewardsRedeemed, joinedAt, lastStampedAt },
      profile,
      history,
      messages,
      devices: { browsers: row.browsers, appleWallet: row.appleWallet, googleWallet: row.googleWallet },
    },
  }
}
