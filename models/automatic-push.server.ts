import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * The holder's automatic push after a stamp (issue #6): "You got a stamp…", or "Reward earned…" when the stamp
 * completes the card. Neither uses the owner's quota, so neither may become a free broadcast through a stamp-undo
 * loop (DECISIONS.md, "Automatic and scheduled messages"): at most one stamp push per pass in STAMP_PUSH_INTERVAL_MS
 * and one reward push per pass per round. The pass remembers both (`stamp_push_at`, `reward_push_round`: the
 * round, counted by `rewards_redeemed`, whose reward was pushed), so the limits hold across processes; the pass row
 * is locked by the stamping transaction, so two stamps at once cannot both pass.
 */
export const STAMP_PUSH_INTERVAL_MS = 10 * 60 * 1000

/**
 * Queues the push for the stamp just given to the locked pass (its counters already updated in `transaction`),
 * when the card has them on, the pass has a device subscribed and the limits allow; answers the notification id.
 */
export async function queueStampPush(transaction: Transaction, { passId, cardId, count }: { passId: string; cardId: string; count: number }): Promise<string | null> {
  const [row] = await getSequelize().query<{ id: string }>(
    `with push as (
       insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at)
       select c.id, c.user_id, p.id,
              case when p.stamps >= c.stamps_required then 'reward' else 'stamp' end,
              left(coalesce(nullif(c.business_name, ''), nullif(c.title, ''), 'Stampwise'), 50),
              left(case when p.stamps >= c.stamps_required then 'Reward earned: ' || coalesce(nullif(c.reward, ''), 'your reward')
                        else format('You got %s: %s of %s stamps', case when :count = 1 then 'a stamp' else :count || ' stamps' end,
                                    p.stamps, c.stamps_required) end, 180),
              'queued', false, now()
       from cards c join passes p on p.card_id = c.id
       where c.id = :cardId and p.id = :passId and c.auto_push
         and exists (select 1 from push_subscriptions s where s.pass_id = p.id)
         and case when p.stamps >= c.stamps_required then p.reward_push_round is distinct from p.rewards_redeemed
                  else p.stamp_push_at is null or p.stamp_push_at <= now() - make_interval(secs => :intervalSeconds) end
       returning id, kind
     ), remembered as (
       update passes p set stamp_push_at = case when push.kind = 'stamp' then now() else p.stamp_push_at end,
                           reward_push_round = case when push.kind = 'reward' then p.rewards_redeemed else p.reward_push_round end
       from push where p.id = :passId
     )
     select id from push`,
    { replacements: { passId, cardId, count, intervalSeconds: STAMP_PUSH_INTERVAL_MS / 1000 }, type: QueryTypes.SELECT, transaction },
  )
  return row?.id ?? null
}
