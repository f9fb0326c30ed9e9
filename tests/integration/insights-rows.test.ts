import { expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { redeemReward, stampPass, undoLastStamp } from '#app/services/cards/stamping.server.ts'
import { down, up } from '#migrations/0012-insights.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { recordEventAt, seedHistoryCard, seedPass } from '#tests/support/stamp-history.ts'

/*
 * The rows migration 0012 keeps for the insights (issue 18, item 5): the trigger keeps them in the transaction of each
 * stamp, undo and redemption, and the migration's back-fill makes the same rows from a history recorded before it.
 */

const rowsOf = async (cardId: string) => ({
  days: await sql(
    `select pass_id, day::text, visits, stamps, redemptions from pass_days
     where card_id = :cardId and (visits, stamps, redemptions) <> (0, 0, 0) order by pass_id nulls first, day`,
    { cardId },
  ),
  rounds: await sql(
    `select pass_id, round, first_stamp_at, earned_at, redeemed_at from pass_rounds
     where card_id = :cardId and first_stamp_at is not null order by pass_id, round`,
    { cardId },
  ),
  passes: await sql('select id, last_visit_at from passes where card_id = :cardId order by id', { cardId }),
  undone: await sql(
    'select id, undone_at from stamp_events where card_id = :cardId and undone_at is not null order by id',
    { cardId },
  ),
})

test('a stamp, an undo and a redemption through the app keep the day and round rows and the last visit', async () => {
  const owner = await createOwner()
  const card = await seedHistoryCard(owner.id, { stampsRequired: 3 })
  const pass = await seedPass(card.id, new Date(Date.now() - 86_400_000).toISOString())
  const acting = { ownerId: owner.id, cardId: card.id }
  expect((await stampPass({ ...acting, code: pass.short_code, count: 2 })).ok).toBe(true)
  const [afterStamp] = await sql<{ last_visit_at: Date }>('select last_visit_at from passes where id = :id', pass)
  expect((await stampPass({ ...acting, code: pass.short_code, count: 1 })).ok).toBe(true)
  expect((await undoLastStamp({ ...acting, passId: pass.id })).ok).toBe(true)
  // The undone stamp is no visit: the last visit is the first stamp again, and the round's reward is not earned.
  const [afterUndo] = await sql<{ last_visit_at: Date }>('select last_visit_at from passes where id = :id', pass)
  expect(afterUndo!.last_visit_at).toEqual(afterStamp!.last_visit_at)
  let rows = await rowsOf(card.id)
  expect(rows.days).toEqual([expect.objectContaining({ pass_id: pass.id, visits: 1, stamps: 2, redemptions: 0 })])
  expect(rows.rounds).toEqual([expect.objectContaining({ round: 0, earned_at: null, redeemed_at: null })])
  expect(rows.undone).toHaveLength(1)

  expect((await stampPass({ ...acting, code: pass.short_code, count: 1 })).ok).toBe(true)
  expect((await redeemReward({ ...acting, passId: pass.id })).ok).toBe(true)
  expect((await stampPass({ ...acting, code: pass.short_code, count: 1 })).ok).toBe(true)
  rows = await rowsOf(card.id)
  expect(rows.days).toEqual([expect.objectContaining({ visits: 4, stamps: 4, redemptions: 1 })])
  const [first, second] = rows.rounds as { round: number; first_stamp_at: Date; earned_at: Date; redeemed_at: Date }[]
  expect(first).toMatchObject({ round: 0 })
  expect(first!.earned_at.getTime()).toBeGreaterThan(first!.first_stamp_at.getTime())
  expect(first!.redeemed_at.getTime()).toBeGreaterThanOrEqual(first!.earned_at.getTime())
  expect(second).toMatchObject({ round: 1, earned_at: null, redeemed_at: null })
})

test('the migration’s back-fill makes the rows the trigger keeps, from the same history', async () => {
  const owner = await createOwner()
  const card = await seedHistoryCard(owner.id, { stampsRequired: 3 })
  const a = await seedPass(card.id, '2026-10-01T08:00:00Z')
  const b = await seedPass(card.id, '2026-10-02T08:00:00Z')
  const gone = await seedPass(card.id, '2026-10-03T08:00:00Z')
  await seedPass(card.id, '2026-10-04T08:00:00Z') // never stamped: last visit = join
  await recordEventAt(a, 'stamp', '2026-10-01T09:00:00Z', 2)
  await recordEventAt(a, 'stamp', '2026-10-01T23:59:00Z')
  await recordEventAt(a, 'redeem', '2026-10-02T00:01:00Z')
  await recordEventAt(a, 'stamp', '2026-10-05T10:00:00Z')
  await recordEventAt(a, 'undo', '2026-10-05T10:01:00Z')
  await recordEventAt(a, 'stamp', '2026-10-06T10:00:00Z', 3)
  await recordEventAt(a, 'redeem', '2026-10-09T10:00:00Z')
  await recordEventAt(a, 'stamp', '2026-10-10T10:00:00Z')
  await recordEventAt(b, 'stamp', '2026-10-02T09:00:00Z')
  await recordEventAt(b, 'undo', '2026-10-02T09:01:00Z')
  await recordEventAt(b, 'stamp', '2026-10-03T09:00:00Z', 2)
  await recordEventAt(gone, 'stamp', '2026-10-03T09:00:00Z', 2)
  await sql('delete from passes where id = :id', gone)
  // The app's own last visit (an undo leaves it where it was in this seeding): set as the app's statement would.
  await sql(
    `update passes p set last_visit_at = coalesce((select max(e.created_at) from stamp_events e
       where e.pass_id = p.id and e.kind in ('stamp', 'redeem') and e.undone_at is null), p.created_at)
     where p.card_id = :cardId`,
    { cardId: card.id },
  )
  const live = await rowsOf(card.id)
  expect(live.days.length).toBeGreaterThan(5)
  expect(live.rounds).toHaveLength(5) // A: 3 rounds, B: 1, the removed holder: 1

  const sequelize = getSequelize()
  await sequelize.transaction(async (transaction) => {
    await down({ context: { sequelize, transaction } })
    await up({ context: { sequelize, transaction } })
  })
  const backFilled = await rowsOf(card.id)
  // A removed holder's events have no rounds after a back-fill (they cannot be told apart by pass).
  expect(backFilled).toEqual({ ...live, rounds: live.rounds.filter((round) => round.pass_id !== null) })
})
