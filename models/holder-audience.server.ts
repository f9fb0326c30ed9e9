import { type Transaction } from 'sequelize'
import { type Audience } from '#app/utils/audience.ts'
import { type PushReach } from '#app/utils/push-channels.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { oneToGoSql, rewardEarnedSql } from './loyalty-scheme.server.ts'
import { selectRows } from './transaction.server.ts'

/**
 * The holders a message goes to. One definition of each audience, on a pass `p` of its card `c`
 * (docs/product/insights-and-exports.md): the holders page's filters read the same conditions, so "inactive 30+ days"
 * on the confirm page is exactly the holders list's. A holder's last visit is their join time when they have none
 * (passes.last_visit_at keeps it so). Each condition is served by one of the card's pass indexes (card_id,
 * last_visit_at) and (card_id, stamps).
 */
export const AUDIENCE_CONDITION: Record<Audience, string> = {
  all: 'true',
  inactive: `p.last_visit_at < now() - interval '30 days'`,
  one_to_go: oneToGoSql('p', 'c'),
  reward_waiting: rewardEarnedSql('p', 'c'),
}

/** Where a message goes: one holder's pass (an automatic or stamp push), or an audience of its card's holders. */
export type MessageTarget = { cardId: string; passId: string | null; audience: Audience }

/**
 * `select p.id from passes p …`: the passes of a message's target, as a subquery to join (the planner flattens it).
 * Its replacements are :targetCardId and :targetPassId (targetReplacements). A holder's message reads one pass by
 * its key, never the card's passes.
 */
export function targetPassIdsSql(target: MessageTarget): string {
  if (target.passId) return `select p.id from passes p where p.id = :targetPassId`
  return `select p.id from passes p join cards c on c.id = p.card_id where ${targetPassConditionSql(target)}`
}

/** Whether a pass `p` of card `c` is in the message's target, as a condition (same replacements). */
export function targetPassConditionSql(target: MessageTarget): string {
  if (target.passId) return `p.id = :targetPassId`
  return `p.card_id = :targetCardId and ${AUDIENCE_CONDITION[target.audience] ?? 'false'}`
}

export const targetReplacements = (target: MessageTarget) => ({
  targetCardId: target.cardId,
  targetPassId: target.passId,
})

export type AudienceReach = {
  /** The card's holders in the audience. */
  holders: number
  /** Of them, those with at least one device on some channel. */
  reachedHolders: number
  /** Devices per channel: browsers (one per endpoint), Apple Wallet devices, saved Google Wallet passes. */
  reach: PushReach
}

/**
 * What a message to the audience of the owner's card would reach now, in one statement: its holders, those of them
 * reachable, and the devices per channel counted as the sending counts them (a browser or an Apple Wallet device
 * holding two passes of the card is one). Zero for another owner's card.
 */
export async function countAudienceReach(
  { cardId, ownerId, audience }: { cardId: string; ownerId: string; audience: Audience },
  transaction?: Transaction,
): Promise<AudienceReach> {
  if (!isUuid(cardId) || !isUuid(ownerId)) return { holders: 0, reachedHolders: 0, reach: EMPTY_REACH }
  const [row] = await selectRows<{ holders: number; reached: number; web: number; apple: number; google: number }>(
    `with audience as materialized (
       select p.id from passes p join cards c on c.id = p.card_id and c.user_id = :ownerId
       where p.card_id = :cardId and ${AUDIENCE_CONDITION[audience]}
     ), web as materialized (
       select s.pass_id, s.endpoint from audience a join push_subscriptions s on s.pass_id = a.id
     ), apple as materialized (
       select r.pass_id, r.device_id from audience a join apple_registrations r on r.pass_id = a.id
     ), google as materialized (
       select o.pass_id from audience a join google_wallet_objects o on o.pass_id = a.id where o.state = 'active'
     )
     select (select count(*)::int from audience) as holders,
            (select count(*)::int from (select pass_id from web union select pass_id from apple
                                        union select pass_id from google) reached) as reached,
            (select count(distinct endpoint)::int from web) as web,
            (select count(distinct device_id)::int from apple) as apple,
            (select count(*)::int from google) as google`,
    { cardId, ownerId },
    transaction,
  )
  return {
    holders: row!.holders,
    reachedHolders: row!.reached,
    reach: { web: row!.web, appleWallet: row!.apple, googleWallet: row!.google },
  }
}

/**
 * Whether a message to the audience of the owner's card would reach a device now: the Send's check, which stops at
 * the first holder with one (counting a large audience first would hold the message back; the count follows).
 */
export async function audienceHasDevice(
  { cardId, ownerId, audience }: { cardId: string; ownerId: string; audience: Audience },
  transaction?: Transaction,
): Promise<boolean> {
  if (!isUuid(cardId) || !isUuid(ownerId)) return false
  const [row] = await selectRows<{ reached: boolean }>(
    `select exists (
       select 1 from passes p join cards c on c.id = p.card_id and c.user_id = :ownerId
       where p.card_id = :cardId and ${AUDIENCE_CONDITION[audience]}
         and (exists (select 1 from push_subscriptions s where s.pass_id = p.id)
              or exists (select 1 from apple_registrations r where r.pass_id = p.id)
              or exists (select 1 from google_wallet_objects o where o.pass_id = p.id and o.state = 'active'))
     ) as reached`,
    { cardId, ownerId },
    transaction,
  )
  return row!.reached
}

const EMPTY_REACH: PushReach = { web: 0, appleWallet: 0, googleWallet: 0 }

/** A broadcast `n`'s audience as one condition on `p` and `c`, for statements over several messages. */
export const AUDIENCE_OF_MESSAGE = `case n.audience ${Object.entries(AUDIENCE_CONDITION)
  .map(([audience, condition]) => `when '${audience}' then ${condition}`)
  .join(' ')} else false end`
