import { getSequelize } from '#app/server/db.server.ts'

export type DailyActivity = { day: string; stamps: number; rewards: number }

/**
 * A card's stamps (net of undos) and redeemed rewards per day (UTC) for the last `days` days, oldest first, with
 * zero days included. One query. Another owner's card counts nothing (every day zero): the owner is in the join.
 */
export async function cardDailyActivity(
  { cardId, userId }: { cardId: string; userId: string },
  days = 30,
  now = new Date(),
): Promise<DailyActivity[]> {
  const [rows] = (await getSequelize().query(
    `select to_char(d.day, 'YYYY-MM-DD') as day,
            coalesce(sum(case e.kind when 'stamp' then e.count when 'undo' then -e.count else 0 end), 0)::int as stamps,
            coalesce(sum(case e.kind when 'redeem' then 1 else 0 end), 0)::int as rewards
     from generate_series((:now::timestamptz at time zone 'UTC')::date - (:days - 1),
       (:now::timestamptz at time zone 'UTC')::date, interval '1 day') as d(day)
     left join stamp_events e
       on e.card_id = :cardId and exists (select 1 from cards c where c.id = :cardId and c.user_id = :userId)
          and e.created_at >= d.day at time zone 'UTC' and e.created_at < (d.day + interval '1 day') at time zone 'UTC'
     group by d.day order by d.day`,
    { replacements: { cardId, userId, days, now } },
  )) as [DailyActivity[], unknown]
  return rows
}

export type CardTotals = { holders: number; stampsGiven: number; rewardsRedeemed: number; subscribers: number }

/** The card page's totals for one of the owner's cards; null when the card is not theirs. */
export async function cardTotals({ cardId, userId }: { cardId: string; userId: string }): Promise<CardTotals | null> {
  const [rows] = (await getSequelize().query(
    `select (select count(*) from passes p where p.card_id = c.id)::int as holders,
            (select coalesce(sum(case e.kind when 'stamp' then e.count when 'undo' then -e.count else 0 end), 0)
               from stamp_events e where e.card_id = c.id)::int as stamps_given,
            (select count(*) from stamp_events e where e.card_id = c.id and e.kind = 'redeem')::int as rewards_redeemed,
            (select count(distinct ps.endpoint) from push_subscriptions ps join passes p on p.id = ps.pass_id
               where p.card_id = c.id)::int as subscribers
     from cards c where c.id = :cardId and c.user_id = :userId`,
    { replacements: { cardId, userId } },
  )) as [{ holders: number; stamps_given: number; rewards_redeemed: number; subscribers: number }[], unknown]
  const row = rows[0]
  if (!row) return null
  return {
    holders: row.holders,
    stampsGiven: row.stamps_given,
    rewardsRedeemed: row.rewards_redeemed,
    subscribers: row.subscribers,
  }
}
