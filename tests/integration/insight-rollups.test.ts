import { expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { redeemReward, stampPass, undoLastStamp } from '#app/services/cards/stamping.server.ts'
import { rebuildOwnerPassDays } from '#app/services/insights/time-zone-rebuild.server.ts'
import { insightRanges } from '#app/utils/insight-range.ts'
import { addDays, localDay } from '#app/utils/local-time.ts'
import { down, up } from '#migrations/0020-insight-rollups.ts'
import * as joins from '#migrations/0022-insight-joins.ts'
import { insightFigures, visitsByHour } from '#models/insights.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { recordEventAt, seedHistoryCard, seedPass } from '#tests/support/stamp-history.ts'

/*
 * The rows migrations 0020 and 0022 keep for a year of insights (issue 32, item 4; docs/decisions/058-insight-
 * rollups.md): card_days (with its new holders) and card_quarter_hours always equal the sums they stand for, whichever
 * writer changed the rows under them, and the holders counted and the heat map over a range (reused for its past
 * days) always equal a count over all its rows.
 */

/** The rollups, and the same sums made from the rows they stand for. */
const rollups = async (cardId: string) => ({
  days: await sql(
    `select day::text, sum(visits)::int as visits, sum(stamps)::int as stamps, sum(redemptions)::int as redemptions
     from card_days where card_id = :cardId group by day
     having (sum(visits), sum(stamps), sum(redemptions)) <> (0, 0, 0) order by day`,
    { cardId },
  ),
  quarters: await sql(
    `select quarter, sum(visits)::int as visits from card_quarter_hours where card_id = :cardId group by quarter
     having sum(visits) <> 0 order by quarter`,
    { cardId },
  ),
  joins: await sql(
    `select day::text, sum(joins)::int as joins from card_days where card_id = :cardId group by day
     having sum(joins) <> 0 order by day`,
    { cardId },
  ),
})
const sums = async (cardId: string) => ({
  days: await sql(
    `select day::text, sum(visits)::int as visits, sum(stamps)::int as stamps, sum(redemptions)::int as redemptions
     from pass_days where card_id = :cardId group by day
     having (sum(visits), sum(stamps), sum(redemptions)) <> (0, 0, 0) order by day`,
    { cardId },
  ),
  quarters: await sql(
    `select date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00') as quarter,
            count(*)::int as visits
     from stamp_events where card_id = :cardId and kind in ('stamp', 'redeem') and undone_at is null
     group by 1 order by 1`,
    { cardId },
  ),
  // New holders: the passes by their join's day in the owner's zone.
  joins: await sql(
    `select (p.created_at at time zone u.time_zone)::date::text as day, count(*)::int as joins
     from passes p join cards c on c.id = p.card_id join users u on u.id = c.user_id
     where p.card_id = :cardId group by 1 order by 1`,
    { cardId },
  ),
})

/** Active, stamped and returning holders over [from, to), counted from every pass_days row of the range. */
const counted = async (cardId: string, from: string, to: string) =>
  (
    await sql<{ activeHolders: number; stampedHolders: number; returningHolders: number }>(
      `select count(*) filter (where visits > 0)::int as "activeHolders",
              count(*) filter (where stamp_days > 0)::int as "stampedHolders",
              count(*) filter (where stamp_days > 1)::int as "returningHolders"
       from (select pass_id, sum(visits) as visits, count(*) filter (where stamps > 0) as stamp_days
             from pass_days where card_id = :cardId and day >= :from::date and day < :to::date
               and pass_id is not null group by pass_id) x`,
      { cardId, from, to },
    )
  )[0]

const daysAgo = (days: number, at = '10:00:00') => `${addDays(localDay(new Date(), 'UTC'), -days)}T${at}Z`

test('the rollups equal their sums through stamps, undos and redemptions, a removed holder, a new zone and a card deleted', async () => {
  const owner = await createOwner()
  const card = await seedHistoryCard(owner.id, { stampsRequired: 5 })
  const a = await seedPass(card.id, '2026-10-01T08:00:00Z')
  const b = await seedPass(card.id, '2026-10-02T08:00:00Z')
  const gone = await seedPass(card.id, '2026-10-03T08:00:00Z')
  await seedPass(card.id, '2026-10-04T20:00:00Z') // joined, never stamped: 5 October at +05:30
  await recordEventAt(a, 'stamp', '2026-10-01T09:00:00Z', 2)
  await recordEventAt(a, 'stamp', '2026-10-01T23:59:00Z')
  await recordEventAt(a, 'redeem', '2026-10-02T00:01:00Z')
  await recordEventAt(a, 'stamp', '2026-10-05T10:00:00Z')
  await recordEventAt(a, 'undo', '2026-10-05T10:01:00Z')
  await recordEventAt(b, 'stamp', '2026-10-02T09:07:00Z')
  await recordEventAt(gone, 'stamp', '2026-10-03T09:44:00Z', 2)
  const acting = { ownerId: owner.id, cardId: card.id }
  const [fresh] = await sql<{ short_code: string }>('select short_code from passes where id = :id', b)
  expect((await stampPass({ ...acting, code: fresh!.short_code, count: 2 })).ok).toBe(true)
  expect((await stampPass({ ...acting, code: fresh!.short_code, count: 1 })).ok).toBe(true)
  expect((await undoLastStamp({ ...acting, passId: b.id })).ok).toBe(true)
  expect((await stampPass({ ...acting, code: fresh!.short_code, count: 2 })).ok).toBe(true)
  expect((await redeemReward({ ...acting, passId: b.id })).ok).toBe(true)
  await sql('delete from passes where id = :id', gone)
  const live = await rollups(card.id)
  expect(live.days.length).toBe(4) // 1, 2 and 3 October, today (5 October was undone)
  expect(live).toEqual(await sums(card.id))

  // A new zone moves the days (the rebuild, as its job runs it) and leaves the quarters, which are UTC.
  await sql(`update users set time_zone = 'Asia/Kolkata' where id = :id`, owner)
  await rebuildOwnerPassDays(owner.id)
  const moved = await rollups(card.id)
  expect(moved.days).not.toEqual(live.days)
  expect(moved.joins).not.toEqual(live.joins)
  expect(moved).toEqual(await sums(card.id))
  // A join time moved (a restored card keeps its first join) moves its holder's day.
  await sql(`update passes set created_at = '2026-09-20T12:00:00Z' where id = :id`, a)
  expect((await rollups(card.id)).joins).toEqual((await sums(card.id)).joins)
  // The heat map from the quarters is the heat map from the events, at +05:30.
  const range = { from: '2026-09-01', to: addDays(localDay(new Date(), 'Asia/Kolkata'), 1) }
  const byHour = (rows: { weekday: number; hour: number; visits: number }[]) =>
    rows.map((row) => `${row.weekday}:${row.hour}=${row.visits}`).sort()
  const fromEvents = await sql<{ weekday: number; hour: number; visits: number }>(
    `select (extract(isodow from created_at at time zone 'Asia/Kolkata')::int - 1) as weekday,
            extract(hour from created_at at time zone 'Asia/Kolkata')::int as hour, count(*)::int as visits
     from stamp_events where card_id = :cardId and kind in ('stamp', 'redeem') and undone_at is null group by 1, 2`,
    { cardId: card.id },
  )
  expect(
    byHour(await visitsByHour({ userId: owner.id, cardId: card.id }, { timeZone: 'Asia/Kolkata', range })),
  ).toEqual(byHour(fromEvents))

  // A card's deletion takes its rows along (the triggers skip a card being deleted).
  await sql('delete from cards where id = :id', card)
  expect(await rollups(card.id)).toEqual({ days: [], quarters: [], joins: [] })
  expect(await sql('select 1 from card_insight_versions where card_id = :id', card)).toEqual([])
})

test('the holders of a range: past days counted once per version, today’s added live, each change seen', async () => {
  const owner = await createOwner()
  const card = await seedHistoryCard(owner.id, { stampsRequired: 10 })
  const scope = { userId: owner.id, cardId: card.id }
  const { current, previous } = insightRanges('30d', localDay(new Date(), 'UTC'))
  const figures = async () => {
    const [now, before] = await insightFigures(scope, { timeZone: 'UTC', ranges: [current, previous] })
    const pick = ({ activeHolders, stampedHolders, returningHolders }: typeof now & object) => ({
      activeHolders,
      stampedHolders,
      returningHolders,
    })
    return { now: pick(now!), before: pick(before!) }
  }
  const expected = async () => ({
    now: await counted(card.id, current.from, current.to),
    before: await counted(card.id, previous.from, previous.to),
  })
  const p1 = await seedPass(card.id, daysAgo(40))
  const p2 = await seedPass(card.id, daysAgo(20))
  await recordEventAt(p1, 'stamp', daysAgo(35))
  await recordEventAt(p1, 'stamp', daysAgo(10))
  await recordEventAt(p1, 'stamp', daysAgo(3))
  await recordEventAt(p2, 'stamp', daysAgo(5))
  expect(await figures()).toEqual({
    now: { activeHolders: 2, stampedHolders: 2, returningHolders: 1 },
    before: { activeHolders: 1, stampedHolders: 1, returningHolders: 0 },
  })

  // Today: p2's second day of stamps makes it returning; the past days' counts are the ones kept (their version
  // did not move), today's rows added to them.
  const version = async () =>
    (await sql<{ v: string }>('select past_version::text as v from card_insight_versions where card_id = :id', card))[0]
      ?.v
  const pastVersion = await version()
  const [code] = await sql<{ short_code: string }>('select short_code from passes where id = :id', p2)
  expect((await stampPass({ ...scope, ownerId: owner.id, code: code!.short_code, count: 1 })).ok).toBe(true)
  expect(await version()).toBe(pastVersion)
  expect((await figures()).now).toEqual({ activeHolders: 2, stampedHolders: 2, returningHolders: 2 })

  // A stamp recorded on a past day (as a transaction begun before midnight commits after it) is counted at once.
  const p3 = await seedPass(card.id, daysAgo(4))
  await recordEventAt(p3, 'stamp', daysAgo(2, '23:59:00'))
  expect(Number(await version())).toBeGreaterThan(Number(pastVersion))
  expect((await figures()).now).toEqual({ activeHolders: 3, stampedHolders: 3, returningHolders: 2 })

  // An undo of a past day's stamp and a removed holder change past days too.
  await recordEventAt(p3, 'undo', daysAgo(2, '23:59:30'))
  await sql('delete from passes where id = :id', p1)
  expect(await figures()).toEqual({
    now: { activeHolders: 1, stampedHolders: 1, returningHolders: 1 },
    before: { activeHolders: 0, stampedHolders: 0, returningHolders: 0 },
  })
  expect(await figures()).toEqual(await expected())
})

test('the account’s holders (every card) change when a card with past days is deleted', async () => {
  const owner = await createOwner()
  const kept = await seedHistoryCard(owner.id)
  const deleted = await seedHistoryCard(owner.id)
  await recordEventAt(await seedPass(kept.id, daysAgo(9)), 'stamp', daysAgo(8))
  await recordEventAt(await seedPass(deleted.id, daysAgo(9)), 'stamp', daysAgo(7))
  const { current } = insightRanges('30d', localDay(new Date(), 'UTC'))
  const active = async () =>
    (await insightFigures({ userId: owner.id }, { timeZone: 'UTC', ranges: [current] }))[0]!.activeHolders
  expect(await active()).toBe(2)
  await sql('delete from cards where id = :id', deleted)
  expect(await active()).toBe(1)
})

test('the migration’s back-fill makes the rollups the triggers keep', async () => {
  const owner = await createOwner()
  const card = await seedHistoryCard(owner.id, { stampsRequired: 3 })
  const a = await seedPass(card.id, '2026-10-01T08:00:00Z')
  await recordEventAt(a, 'stamp', '2026-10-01T09:00:00Z', 2)
  await recordEventAt(a, 'stamp', '2026-10-01T09:14:59Z')
  await recordEventAt(a, 'redeem', '2026-10-02T00:01:00Z')
  await recordEventAt(a, 'stamp', '2026-10-05T10:00:00Z')
  await recordEventAt(a, 'undo', '2026-10-05T10:01:00Z')
  const live = await rollups(card.id)
  const sequelize = getSequelize()
  // 0022's column and triggers stand on 0020's card_days: taken down first, made again after.
  await sequelize.transaction(async (transaction) => {
    await joins.down({ context: { sequelize, transaction } })
    await down({ context: { sequelize, transaction } })
    await up({ context: { sequelize, transaction } })
    await joins.up({ context: { sequelize, transaction } })
  })
  expect(await rollups(card.id)).toEqual(live)
  expect(live).toEqual(await sums(card.id))
})

test('the heat map: past days kept per version, a past day’s undo seen at once, today’s visits added live', async () => {
  const owner = await createOwner()
  const card = await seedHistoryCard(owner.id, { stampsRequired: 10 })
  const scope = { userId: owner.id, cardId: card.id }
  const { current } = insightRanges('12m', localDay(new Date(), 'UTC'))
  const heatMap = async () =>
    (await visitsByHour(scope, { timeZone: 'UTC', range: current }))
      .map((cell) => `${cell.weekday}:${cell.hour}=${cell.visits}`)
      .sort()
  const fromEvents = async () =>
    (
      await sql<{ cell: string }>(
        `select (extract(isodow from created_at)::int - 1) || ':' || extract(hour from created_at)::int || '='
                  || count(*) as cell
         from stamp_events where card_id = :cardId and kind in ('stamp', 'redeem') and undone_at is null
           and created_at >= :from::date
         group by extract(isodow from created_at), extract(hour from created_at)`,
        { cardId: card.id, from: current.from },
      )
    )
      .map((row) => row.cell)
      .sort()
  const pass = await seedPass(card.id, daysAgo(30))
  await recordEventAt(pass, 'stamp', daysAgo(5, '10:00:00'))
  await recordEventAt(pass, 'stamp', daysAgo(4, '10:00:00'))
  await recordEventAt(pass, 'stamp', daysAgo(4, '11:30:00'))
  const past = await heatMap()
  expect(past).toEqual(await fromEvents())
  expect(past.length).toBeGreaterThan(1)

  // An undo of a past day's stamp (the counter took it back the day after) changes the kept past at once.
  await recordEventAt(pass, 'undo', daysAgo(3, '09:00:00'))
  const undone = await heatMap()
  expect(undone).not.toEqual(past)
  expect(undone).toEqual(await fromEvents())

  const [code] = await sql<{ short_code: string }>('select short_code from passes where id = :id', pass)
  expect((await stampPass({ ...scope, ownerId: owner.id, code: code!.short_code, count: 1 })).ok).toBe(true)
  const withToday = await heatMap()
  expect(withToday).not.toEqual(undone)
  expect(withToday).toEqual(await fromEvents())
})

test('rewards earned and the median time to reward: the past kept per version, today’s rounds merged in', async () => {
  const owner = await createOwner()
  const card = await seedHistoryCard(owner.id, { stampsRequired: 2 })
  const scope = { userId: owner.id, cardId: card.id }
  const { current } = insightRanges('12m', localDay(new Date(), 'UTC'))
  const figures = async () => {
    const [now] = await insightFigures(scope, { timeZone: 'UTC', ranges: [current] })
    return { earned: now!.rewardsEarned, median: now!.medianSecondsToReward }
  }
  const expected = async () => {
    const [row] = await sql<{ earned: number; median: number | null }>(
      `select count(*)::int as earned,
              (percentile_cont(0.5) within group (order by extract(epoch from earned_at - first_stamp_at))
                 filter (where first_stamp_at is not null))::float8 as median
       from pass_rounds where card_id = :cardId and earned_at >= :from::date and earned_at < :to::date`,
      { cardId: card.id, from: current.from, to: current.to },
    )
    return { earned: row!.earned, median: row!.median === null ? null : Number(row!.median) }
  }
  // Three rounds earned on past days, 1, 2 and 4 days from first stamp to reward.
  const passes = []
  for (const [first, earned] of [
    [30, 29],
    [30, 28],
    [20, 16],
  ] as const) {
    const pass = await seedPass(card.id, daysAgo(first + 1))
    await recordEventAt(pass, 'stamp', daysAgo(first))
    await recordEventAt(pass, 'stamp', daysAgo(earned))
    passes.push(pass)
  }
  expect(await figures()).toEqual({ earned: 3, median: 2 * 86_400 })
  expect(await figures()).toEqual(await expected())

  // Today: a round earned 10 days after its first stamp moves the median between the two middle values.
  const late = await seedPass(card.id, daysAgo(11))
  await recordEventAt(late, 'stamp', daysAgo(10))
  const [code] = await sql<{ short_code: string }>('select short_code from passes where id = :id', late)
  expect((await stampPass({ ...scope, ownerId: owner.id, code: code!.short_code, count: 1 })).ok).toBe(true)
  const withToday = await figures()
  expect(withToday).toEqual({ earned: 4, median: 3 * 86_400 })
  expect(withToday).toEqual(await expected())

  // A past day's earning stamp taken back today: that round is earned no more, and the kept past is read again.
  await recordEventAt(passes[2]!, 'undo', daysAgo(0, '00:00:01'))
  expect(await figures()).toEqual({ earned: 3, median: 2 * 86_400 })
  expect(await figures()).toEqual(await expected())
})
