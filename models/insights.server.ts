import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { type InsightDay, type VisitHour } from '#app/types/insights.ts'
import { type DayRange } from '#app/utils/insight-range.ts'
import { eventFilterSql, type EventFilter } from './activity.server.ts'
import { holderCounts } from './insight-holders.server.ts'
import { cardsOf, pastFigures, pastState, splitAtToday } from './insight-past.server.ts'
import { rewardFigures } from './insight-rewards.server.ts'

export type { InsightDay, VisitHour }

/**
 * The figures of the card page and the account home (docs/product/insights-and-exports.md), read from the
 * small rows migration 0012 keeps: pass_days (per pass and local day) and pass_rounds (per round), plus the passes'
 * join times. Days are calendar days in the owner's time zone; a range is [from, to) in days, turned into instants
 * by the database in the same zone the rows were counted in. Scoped by owner: `cardId` narrows to one of their
 * cards, without it every card of theirs counts; another owner's card counts nothing.
 */
export type InsightScope = { userId: string; cardId?: string }

export type InsightFigures = {
  newHolders: number
  /** Holders with a visit (a stamp or a redemption) in the range. */
  activeHolders: number
  stamps: number
  rewardsEarned: number
  rewardsRedeemed: number
  /** Holders stamped in the range, and those of them stamped on two or more different days. */
  stampedHolders: number
  returningHolders: number
  /** Median time from a round's first stamp to the stamp that earned its reward, for rewards earned in the range. */
  medianSecondsToReward: number | null
}

/**
 * What every statement here binds: the scope (`ownerId` too, for the person filter's "you"), the zone, and either
 * one range (`from`, `to`) or several (`from0`, `to0`, … matching rangeValues) and the filter's own values.
 */
function bindings(
  scope: InsightScope,
  timeZone: string,
  ranges: DayRange | DayRange[],
  who: { replacements: Record<string, string> } = { replacements: {} },
): Record<string, unknown> {
  const replacements: Record<string, unknown> = {
    userId: scope.userId,
    ownerId: scope.userId,
    cardId: scope.cardId ?? null,
    timeZone,
    ...who.replacements,
  }
  if (!Array.isArray(ranges)) return { ...replacements, from: ranges.from, to: ranges.to }
  ranges.forEach((range, index) => {
    replacements[`from${index}`] = range.from
    replacements[`to${index}`] = range.to
  })
  return replacements
}

/** `(i, from_day, to_day)` rows for `ranges`, bound by bindings(). */
const rangeValues = (ranges: DayRange[]) =>
  ranges.map((_, index) => `(${index}, :from${index}::date, :to${index}::date)`).join(', ')

/**
 * The figures for each range, in the order given: the sums from card_days (migrations 0020 and 0022: new holders,
 * stamps, redemptions), and, each reusing its past days' figures, the holders counted (distinct passes, holderCounts)
 * and the rewards earned with the median time to reward (rewardFigures).
 */
export async function insightFigures(
  scope: InsightScope,
  { timeZone, ranges }: { timeZone: string; ranges: DayRange[] },
): Promise<InsightFigures[]> {
  const values = rangeValues(ranges)
  const replacements = bindings(scope, timeZone, ranges)
  const [rows, holders, rewards] = await Promise.all([
    getSequelize().query<{ i: number; new_holders: number; stamps: number; redeemed: number }>(
      `with scope as (${cardsOf(scope)}),
       ranges as (select i, from_day, to_day from (values ${values}) as v (i, from_day, to_day))
       select r.i, coalesce(sum(d.joins), 0)::int as new_holders, coalesce(sum(d.stamps), 0)::int as stamps,
              coalesce(sum(d.redemptions), 0)::int as redeemed
       from ranges r
       left join card_days d
         on d.card_id in (select id from scope) and d.day >= r.from_day and d.day < r.to_day
       group by r.i
       order by r.i`,
      { replacements, type: QueryTypes.SELECT },
    ),
    holderCounts(scope, timeZone, ranges),
    rewardFigures(scope, timeZone, ranges),
  ])
  return rows.map((row, index) => ({
    newHolders: row.new_holders,
    ...holders[index]!,
    stamps: row.stamps,
    rewardsEarned: rewards[index]!.earned,
    rewardsRedeemed: row.redeemed,
    medianSecondsToReward: rewards[index]!.medianSeconds,
  }))
}

/** Stamps and new holders on each day of the range (card_days), oldest first, days without any included. */
export async function insightDays(
  scope: InsightScope,
  { timeZone, range }: { timeZone: string; range: DayRange },
): Promise<InsightDay[]> {
  return getSequelize().query<InsightDay>(
    `with scope as (${cardsOf(scope)})
     select to_char(g.day, 'YYYY-MM-DD') as day, coalesce(s.stamps, 0)::int as stamps,
            coalesce(s.joins, 0)::int as "newHolders"
     from generate_series(:from::date, :to::date - 1, interval '1 day') as g (day)
     left join (
       select d.day, sum(d.stamps) as stamps, sum(d.joins) as joins from card_days d
       where d.card_id in (select id from scope) and d.day >= :from::date and d.day < :to::date
       group by d.day
     ) s on s.day = g.day
     order by g.day`,
    {
      replacements: bindings(scope, timeZone, range),
      type: QueryTypes.SELECT,
    },
  )
}

/** The heat maps of past days, by version (insight-past.server.ts): a year is 140,000 quarter rows to read. */
const pastHeatMaps = pastFigures<VisitHour[]>('heat map')

/** Visits by local weekday and hour over [from, to), from the card's quarters of an hour (migration 0020). */
function quarterVisits(scope: InsightScope, timeZone: string, range: DayRange): Promise<VisitHour[]> {
  return getSequelize().query<VisitHour>(
    `with scope as (${cardsOf(scope)}),
     hours as (
       select date_trunc('hour', q.quarter at time zone :timeZone) as local_hour, sum(q.visits) as visits
       from card_quarter_hours q
       where q.card_id in (select id from scope)
         and q.quarter >= :from::date::timestamp at time zone :timeZone
         and q.quarter < :to::date::timestamp at time zone :timeZone
       group by 1
     )
     select (extract(isodow from local_hour)::int - 1) as weekday, extract(hour from local_hour)::int as hour,
            sum(visits)::int as visits
     from hours
     group by 1, 2
     having sum(visits) > 0`,
    { replacements: bindings(scope, timeZone, range), type: QueryTypes.SELECT },
  )
}

/** Two heat maps as one: the visits of each weekday and hour added; only the hours with visits. */
function addHours(a: VisitHour[], b: VisitHour[]): VisitHour[] {
  if (!b.length) return a
  if (!a.length) return b
  const sums = new Map<string, VisitHour>()
  for (const cell of [...a, ...b]) {
    const key = `${cell.weekday}:${cell.hour}`
    const found = sums.get(key)
    sums.set(key, found ? { ...found, visits: found.visits + cell.visits } : { ...cell })
  }
  return [...sums.values()].filter((cell) => cell.visits > 0)
}

/**
 * Visits (stamps not undone, and redemptions) by weekday (0 = Monday … 6 = Sunday) and hour (0–23) of the business's
 * clock, over the range; only the hours with visits. Unfiltered, from the card's quarters of an hour (migration 0020:
 * a range's ends, local midnights, are whole quarters in every zone), the days before today once per version of them
 * and today's live (a sum: the two add up); filtered by who or where, from the events, whose person and place the
 * quarters do not keep.
 */
export async function visitsByHour(
  scope: InsightScope,
  { timeZone, range, filter = {} }: { timeZone: string; range: DayRange; filter?: Who },
): Promise<VisitHour[]> {
  if (!filter.person && !filter.location) {
    const state = await pastState(scope, timeZone)
    const split = splitAtToday(range, state.today)
    const [before, after] = await Promise.all([
      range.from < split
        ? pastHeatMaps.of(scope, timeZone, { from: range.from, split }, state, () =>
            quarterVisits(scope, timeZone, { from: range.from, to: split }),
          )
        : [],
      split < range.to ? quarterVisits(scope, timeZone, { from: split, to: range.to }) : [],
    ])
    return addHours(before, after)
  }
  const who = eventFilterSql(filter)
  return getSequelize().query<VisitHour>(
    // One time-zone conversion per visit (to its local hour), the weekday and hour taken from the few hundred hours;
    // the visits come from the (card_id, created_at) index, which carries kind and undone_at (migration 0012).
    `with scope as (${cardsOf(scope)}),
     hours as (
       select date_trunc('hour', e.created_at at time zone :timeZone) as local_hour, count(*) as visits
       from stamp_events e
       where e.card_id in (select id from scope)
         and e.created_at >= :from::date::timestamp at time zone :timeZone
         and e.created_at < :to::date::timestamp at time zone :timeZone
         and e.kind in ('stamp', 'redeem') and e.undone_at is null ${who.sql}
       group by 1
     )
     select (extract(isodow from local_hour)::int - 1) as weekday, extract(hour from local_hour)::int as hour,
            sum(visits)::int as visits
     from hours
     group by 1, 2`,
    {
      replacements: bindings(scope, timeZone, range, who),
      type: QueryTypes.SELECT,
    },
  )
}

/*
 * The figures filtered by who and where (the card page's location and person filter). pass_days and pass_rounds
 * know neither, so these come from the events themselves, by the (card_id, created_at) index (which carries kind and
 * undone_at), or the actor's or location's (…, created_at) index when the planner prefers them. Only the figures an
 * event makes are filtered: a visit (stamp or redemption not undone) and its stamps. New holders (a holder joins by
 * themself), rewards earned and the time to reward (a round's stamps may come from several people and places) are
 * not anyone's at a place, and are left out by the page (docs/decisions/047-activity-and-filtered-insights.md).
 */
export type Who = Pick<EventFilter, 'person' | 'location'>

export type FilteredFigures = Pick<
  InsightFigures,
  'activeHolders' | 'stamps' | 'rewardsRedeemed' | 'stampedHolders' | 'returningHolders'
>

/** The event figures by `filter` for each range, in the order given. One statement. */
export async function filteredInsightFigures(
  scope: InsightScope,
  { timeZone, ranges, filter }: { timeZone: string; ranges: DayRange[]; filter: Who },
): Promise<FilteredFigures[]> {
  const who = eventFilterSql(filter)
  const values = rangeValues(ranges)
  const replacements = bindings(scope, timeZone, ranges, who)
  const rows = await getSequelize().query<{
    active_holders: number
    stamps: number
    redeemed: number
    stamped_holders: number
    returning_holders: number
  }>(
    // A removed holder's events have no pass: their stamps count, they are no holder (as pass_days counts them).
    `with scope as (${cardsOf(scope)}),
     ranges as (
       select i, from_day::timestamp at time zone :timeZone as from_at, to_day::timestamp at time zone :timeZone as to_at
       from (values ${values}) as v (i, from_day, to_day)
     )
     select r.i,
            coalesce(count(x.pass_id), 0)::int as active_holders,
            coalesce(sum(x.stamps), 0)::int as stamps,
            coalesce(sum(x.redemptions), 0)::int as redeemed,
            coalesce(count(x.pass_id) filter (where x.stamp_days > 0), 0)::int as stamped_holders,
            coalesce(count(x.pass_id) filter (where x.stamp_days > 1), 0)::int as returning_holders
     from ranges r
     left join lateral (
       select e.pass_id,
              coalesce(sum(e.count) filter (where e.kind = 'stamp'), 0) as stamps,
              count(*) filter (where e.kind = 'redeem') as redemptions,
              count(distinct (e.created_at at time zone :timeZone)::date) filter (where e.kind = 'stamp') as stamp_days
       from stamp_events e
       where e.card_id in (select id from scope) and e.created_at >= r.from_at and e.created_at < r.to_at
         and e.kind in ('stamp', 'redeem') and e.undone_at is null ${who.sql}
       group by e.pass_id
     ) x on true
     group by r.i
     order by r.i`,
    { replacements, type: QueryTypes.SELECT },
  )
  return rows.map((row) => ({
    activeHolders: row.active_holders,
    stamps: row.stamps,
    rewardsRedeemed: row.redeemed,
    stampedHolders: row.stamped_holders,
    returningHolders: row.returning_holders,
  }))
}

/** Stamps by `filter` on each day of the range (the chart's bars), oldest first, days without any included. */
export async function filteredStampDays(
  scope: InsightScope,
  { timeZone, range, filter }: { timeZone: string; range: DayRange; filter: Who },
): Promise<{ day: string; stamps: number }[]> {
  const who = eventFilterSql(filter)
  return getSequelize().query<{ day: string; stamps: number }>(
    `with scope as (${cardsOf(scope)})
     select to_char(g.day, 'YYYY-MM-DD') as day, coalesce(s.stamps, 0)::int as stamps
     from generate_series(:from::date, :to::date - 1, interval '1 day') as g (day)
     left join (
       select (e.created_at at time zone :timeZone)::date as day, sum(e.count) as stamps
       from stamp_events e
       where e.card_id in (select id from scope)
         and e.created_at >= :from::date::timestamp at time zone :timeZone
         and e.created_at < :to::date::timestamp at time zone :timeZone
         and e.kind = 'stamp' and e.undone_at is null ${who.sql}
       group by 1
     ) s on s.day = g.day
     order by g.day`,
    {
      replacements: bindings(scope, timeZone, range, who),
      type: QueryTypes.SELECT,
    },
  )
}
