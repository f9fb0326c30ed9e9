import { anyDeviceSql, capCountsSql, ownerHasAccessSql, webDeviceSql } from './automatic-messages.server.ts'
import { oneToGoSql, rewardEarnedSql } from './loyalty-scheme.server.ts'
import { type Statement } from './transaction.server.ts'

/**
 * The holder's automatic push after a stamp (issue #6, issue 19); its words and limits are in
 * app/services/push/stamp-push.server.ts. The pass remembers the last ones (`stamp_push_at`, `reward_push_round`:
 * the round, counted by `rewards_redeemed`, whose reward was pushed), so the limits hold across processes; the pass
 * row is locked by the stamping transaction, so two stamps at once cannot both pass. Each stamp takes one of the two
 * statements here, sent in the round trip of the stamp's own statement and its COMMIT (models/stamping.server.ts), so
 * the automatic messages of issue 19 add neither a statement nor a round trip to a stamp. Each answers the id of the
 * notification it queued, if any, as `id`.
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

const REWARD = rewardEarnedSql('p', 'c')
/** The stamp push's limit: none in the last interval (a 'one stamp to go' counts as one). */
const STAMP_PUSH_DUE = `(p.stamp_push_at is null or p.stamp_push_at <= now() - make_interval(secs => :intervalSeconds))`

/**
 * The statement that queues the push for the stamp just given to a pass of the owner's card, locked by the caller
 * (its counters already updated by the statement before this one), when the limits allow. A stamp that completes the
 * card: 'reward earned' (the card's card_automations row, or the default: on, with the words of `title` and
 * `rewardBody`) once per round, whatever the owner's plan (the card working). Any other stamp: the stamp push when
 * the card has it on (`auto_push`), once per interval. Both go by web push only: the wallets show the stamp, and
 * announce an earned reward, themselves. Which of the two is decided here, on the row as the stamp left it.
 */
export function stampPushStatement(values: StampPushValues): Statement {
  return {
    sql: `with push as (
       insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at)
       select c.id, c.user_id, p.id,
              case when ${REWARD} then 'reward' else 'stamp' end,
              case when ${REWARD} then coalesce(a.title, :title) else :title end,
              case when ${REWARD} then coalesce(a.body, :rewardBody) else :stampBody end,
              'queued', false, now()
       from cards c join passes p on p.card_id = c.id
       left join card_automations a on a.card_id = c.id and a.kind = 'reward_earned'
       where c.id = :cardId and c.user_id = :ownerId and p.id = :passId
         and case when ${REWARD}
                  then coalesce(a.enabled, true) and p.reward_push_round is distinct from p.rewards_redeemed
                       and ${webDeviceSql('p.id')}
                  else c.auto_push and ${STAMP_PUSH_DUE} and ${webDeviceSql('p.id')} end
       returning id, kind
     ), remembered as (
       update passes p set stamp_push_at = case when push.kind = 'stamp' then now() else p.stamp_push_at end,
                           reward_push_round = case when push.kind = 'reward' then p.rewards_redeemed
                             else p.reward_push_round end
       from push where p.id = :passId
     )
     select id from push`,
    replacements: values,
  }
}

/**
 * For a stamp that left exactly one stamp to the reward, instead of stampPushStatement: 'one stamp to go' when the card
 * has it on, the owner has access, the pass has a device on any channel and has not had this round's yet (occasion
 * 'one_to_go:{rewards_redeemed}'). It goes at once (no quiet hours) and counts toward the caps: over one, it is
 * recorded 'skipped' with its reason and the occasion is spent (once per occasion, sent or not). It replaces the
 * visit's stamp push and counts as one for the interval; when it does not go, the stamp push goes as
 * stampPushStatement would send it. Answers the id of the message queued, if any.
 */
export function oneToGoOrStampPushStatement(values: Omit<StampPushValues, 'rewardBody'>): Statement {
  return {
    sql: `with target as materialized (
       select c.id as card_id, c.user_id, p.id as pass_id, p.rewards_redeemed, a.title, a.body, u.time_zone,
              c.automatic_daily_cap, c.automatic_weekly_cap
       from cards c join passes p on p.card_id = c.id
       join card_automations a on a.card_id = c.id and a.kind = 'one_to_go' and a.enabled
       join users u on u.id = c.user_id
       left join subscriptions s on s.user_id = c.user_id
       where c.id = :cardId and c.user_id = :ownerId and p.id = :passId and ${oneToGoSql('p', 'c')}
         and ${ownerHasAccessSql('now()')} and ${anyDeviceSql('p.id')}
         and not exists (select 1 from notifications o
                         where o.pass_id = p.id and o.occasion = 'one_to_go:' || p.rewards_redeemed)
     ), one_to_go as (
       insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at,
                                  occasion, skipped_reason)
       select t.card_id, t.user_id, t.pass_id, 'one_to_go', t.title, t.body,
              case when verdict.reason is null then 'queued' else 'skipped' end, false,
              case when verdict.reason is null then now() end, 'one_to_go:' || t.rewards_redeemed, verdict.reason
       from target t
       ${capCountsSql('t.pass_id', 'now()', 't.time_zone')}
       cross join lateral (select case when cap.today >= t.automatic_daily_cap then 'daily_cap'
                                       when cap.week >= t.automatic_weekly_cap then 'weekly_cap' end as reason) verdict
       on conflict (pass_id, occasion) where occasion is not null do nothing
       returning id, status
     ), stamp as (
       insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at)
       select c.id, c.user_id, p.id, 'stamp', :title, :stampBody, 'queued', false, now()
       from cards c join passes p on p.card_id = c.id
       where c.id = :cardId and c.user_id = :ownerId and p.id = :passId
         and c.auto_push and ${STAMP_PUSH_DUE} and ${webDeviceSql('p.id')}
         and not exists (select 1 from one_to_go where one_to_go.status = 'queued')
       returning id
     ), sent as (
       select id from one_to_go where status = 'queued' union all select id from stamp
     ), remembered as (
       update passes p set stamp_push_at = now() from (select 1 from sent limit 1) any_sent where p.id = :passId
     )
     select (select id from sent limit 1) as id`,
    replacements: values,
  }
}
