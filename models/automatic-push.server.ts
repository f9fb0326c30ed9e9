import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * The holder's automatic push after a stamp (issue #6); its words and limits are in
 * app/services/push/stamp-push.server.ts. The pass remembers the last ones (`stamp_push_at`, `reward_push_round`:
 * the round, counted by `rewards_redeemed`, whose reward was pushed), so the limits hold across processes; the pass
 * row is locked by the stamping transaction, so two stamps at once cannot both pass.
 */

export type StampPushValues = {
  ownerId: string
  cardId: string
  passId: string
  /** The words, already cut to their lengths: one title, and a body for a stamp and one for a completed card. */
  title: string
  stampBody: string
  rewardBody: string
  /** At most one stamp push per pass in this time. */
  intervalSeconds: number
}

/**
 * Queues the push for the stamp just given to a pass of the owner's card, locked by the caller (its counters already
 * updated in `transaction`), when the card has them on, the pass has a device subscribed and the limits allow: a
 * reward push once per round, a stamp push once per interval. Which of the two is decided here, on the row as the
 * stamp left it; answers the notification id.
 */
export async function queueStampPush(transaction: Transaction, values: StampPushValues): Promise<string | null> {
  const [row] = await getSequelize().query<{ id: string }>(
    `with push as (
       insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at)
       select c.id, c.user_id, p.id,
              case when p.stamps >= c.stamps_required then 'reward' else 'stamp' end,
              :title,
              case when p.stamps >= c.stamps_required then :rewardBody else :stampBody end,
              'queued', false, now()
       from cards c join passes p on p.card_id = c.id
       where c.id = :cardId and c.user_id = :ownerId and p.id = :passId and c.auto_push
         and exists (select 1 from push_subscriptions s where s.pass_id = p.id)
         and case when p.stamps >= c.stamps_required then p.reward_push_round is distinct from p.rewards_redeemed
                  else p.stamp_push_at is null or p.stamp_push_at <= now() - make_interval(secs => :intervalSeconds) end
       returning id, kind
     ), remembered as (
       update passes p set stamp_push_at = case when push.kind = 'stamp' then now() else p.stamp_push_at end,
                           reward_push_round = case when push.kind = 'reward' then p.rewards_redeemed
                             else p.reward_push_round end
       from push where p.id = :passId
     )
     select id from push`,
    { replacements: values, type: QueryTypes.SELECT, transaction },
  )
  return row?.id ?? null
}
