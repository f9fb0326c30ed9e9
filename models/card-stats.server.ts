import { getSequelize } from '#app/server/db.server.ts'

export type CardTotals = { holders: number; subscribers: number }

/**
 * The card page's totals for one of the owner's cards (what it did over a range is models/insights.server.ts); null
 * when the card is not theirs. Both are index counts, so they stay quick at 100,000 holders.
 */
export async function cardTotals({ cardId, userId }: { cardId: string; userId: string }): Promise<CardTotals | null> {
  const [rows] = (await getSequelize().query(
    `select (select count(*) from passes p where p.card_id = c.id)::int as holders,
            (select count(distinct ps.endpoint) from push_subscriptions ps join passes p on p.id = ps.pass_id
               where p.card_id = c.id)::int as subscribers
     from cards c where c.id = :cardId and c.user_id = :userId`,
    { replacements: { cardId, userId } },
  )) as [{ holders: number; subscribers: number }[], unknown]
  const row = rows[0]
  return row ? { holders: row.holders, subscribers: row.subscribers } : null
}
