import crypto from 'node:crypto'
import { sql } from './auth-api.ts'

/**
 * A card's history written as the app writes it, at chosen times: each event changes the pass's counters and records
 * the stamp event in one statement, as models/stamping.server.ts does (so the insights trigger of migration 0012 sees
 * the pass as the app would leave it), with `created_at` set to the given instant instead of now().
 */
export async function seedHistoryCard(
  userId: string,
  { stampsRequired = 3, timeZone }: { stampsRequired?: number; timeZone?: string } = {},
) {
  if (timeZone) await sql('update users set time_zone = :timeZone where id = :userId', { userId, timeZone })
  const [card] = await sql<{ id: string; slug: string }>(
    `insert into cards (user_id, slug, status, title, business_name, reward, stamps_required)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 'A free coffee', :stampsRequired)
     returning id, slug`,
    { userId, slug: `history-${crypto.randomBytes(5).toString('hex')}`, stampsRequired },
  )
  return card!
}

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
export const randomShortCode = () =>
  Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % ALPHABET.length]).join('')

/** A pass that joined at `joinedAt`. */
export async function seedPass(cardId: string, joinedAt: string, shortCode = randomShortCode()) {
  const [pass] = await sql<{ id: string; short_code: string }>(
    `insert into passes (card_id, short_code, created_at, last_visit_at) values (:cardId, :shortCode, :at, :at)
     returning id, short_code`,
    { cardId, shortCode, at: joinedAt },
  )
  return pass!
}

/**
 * A stamp, undo or redemption of a pass at `at`. An undo takes back the pass's newest stamp (give its count); a
 * redemption takes the card's stamps required off. The owner is the actor.
 */
export async function recordEventAt(pass: { id: string }, kind: 'stamp' | 'undo' | 'redeem', at: string, count = 1) {
  await sql(
    `with target as (
       select p.id, p.card_id, c.user_id, c.stamps_required from passes p join cards c on c.id = p.card_id
       where p.id = :passId
     ), updated as (
       update passes p set
         stamps = greatest(p.stamps + case :kind when 'stamp' then :count when 'undo' then - :count
                                             else -t.stamps_required end, 0),
         rewards_redeemed = p.rewards_redeemed + case when :kind = 'redeem' then 1 else 0 end,
         last_visit_at = case when :kind = 'undo' then p.last_visit_at else cast(:at as timestamptz) end
       from target t where p.id = t.id returning p.id
     )
     insert into stamp_events (pass_id, card_id, actor_id, kind, count, created_at)
     select t.id, t.card_id, t.user_id, :kind, case when :kind = 'redeem' then 1 else :count end, :at
     from target t, updated`,
    { passId: pass.id, kind, count, at },
  )
}
