import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { type DayRange } from '#app/utils/insight-range.ts'

/**
 * Holders counted over a range of days: active (a visit), stamped (a stamp), returning (stamps on two or more days).
 * They are distinct passes, which no per-day sum gives, so a year of them means grouping every pass_days row of the
 * year by pass (a million rows at a million events: over a second). Past days do not change but through a few
 * writers (an undo across midnight, a removed holder, the time-zone rebuild), which move the card's past_version
 * (migration 0020): the range's days before the database's today are counted once per version and kept here, and
 * the days from today on are added from their own few rows, each pass checked against its past days.
 * docs/decisions/058-insight-rollups.md.
 */
export type HolderCounts = { activeHolders: number; stampedHolders: number; returningHolders: number }

/** Which cards: one of the owner's, or all of them (bound as :userId and :cardId). */
type Scope = { userId: string; cardId?: string }

/** Past counts by scope, zone, days and version; a few hundred owners' pages at most (oldest dropped first). */
const PAST_LIMIT = 500
const past = new Map<string, HolderCounts>()
/** A pass_days row of yesterday may still commit this long after midnight (its transaction began before it). */
const LATE_COMMIT_SECONDS = 60

const cardsOf = (scope: Scope) =>
  scope.cardId
    ? 'select id from cards where user_id = :userId and id = :cardId'
    : 'select id from cards where user_id = :userId'

async function select<T extends object>(sql: string, replacements: Record<string, unknown>) {
  return getSequelize().query<T>(sql, { replacements, type: QueryTypes.SELECT })
}

/** The holders counted from the rows of [from, to) alone. */
async function countRange(scope: Scope, from: string, to: string): Promise<HolderCounts> {
  const [row] = await select<HolderCounts>(
    `with scope as (${cardsOf(scope)})
     select count(*) filter (where x.visits > 0)::int as "activeHolders",
            count(*) filter (where x.stamp_days > 0)::int as "stampedHolders",
            count(*) filter (where x.stamp_days > 1)::int as "returningHolders"
     from (
       select d.pass_id, sum(d.visits) as visits, count(*) filter (where d.stamps > 0) as stamp_days
       from pass_days d
       where d.card_id in (select id from scope) and d.day >= :from::date and d.day < :to::date
         and d.pass_id is not null
       group by d.pass_id
     ) x`,
    { userId: scope.userId, cardId: scope.cardId ?? null, from, to },
  )
  return row!
}

/**
 * What the days [split, to) add to the counts of [from, split): their passes that had no visit (no stamp) before, and
 * those whose stamp days reach two with them. Reads the few passes of those days, and each one's rows before.
 */
async function countAdded(scope: Scope, from: string, split: string, to: string): Promise<HolderCounts> {
  const [row] = await select<HolderCounts>(
    `with scope as (${cardsOf(scope)}),
     recent as (
       select d.pass_id, sum(d.visits) as visits, count(*) filter (where d.stamps > 0) as stamp_days
       from pass_days d
       where d.card_id in (select id from scope) and d.day >= :split::date and d.day < :to::date
         and d.pass_id is not null
       group by d.pass_id
     ), compared as (
       select r.visits, r.stamp_days, b.visits as visits_before, b.stamp_days as stamp_days_before
       from recent r
       cross join lateral (
         select coalesce(sum(e.visits), 0) as visits, count(*) filter (where e.stamps > 0) as stamp_days
         from pass_days e where e.pass_id = r.pass_id and e.day >= :from::date and e.day < :split::date
       ) b
     )
     select count(*) filter (where visits > 0 and visits_before = 0)::int as "activeHolders",
            count(*) filter (where stamp_days > 0 and stamp_days_before = 0)::int as "stampedHolders",
            count(*) filter (where stamp_days_before < 2 and stamp_days_before + stamp_days >= 2)::int
              as "returningHolders"
     from compared`,
    { userId: scope.userId, cardId: scope.cardId ?? null, from, split, to },
  )
  return row!
}

/** The scope's past versions (one key) and the database's today in the zone, with the seconds since its midnight. */
async function pastVersion(scope: Scope, timeZone: string) {
  const [row] = await select<{ version: string; today: string; since_midnight: number }>(
    // Each card's version, not their sum: a card deleted from the account's scope must change the key too.
    `select coalesce((select md5(string_agg(c.id || ':' || coalesce(v.past_version, 0), ',' order by c.id))
                      from cards c left join card_insight_versions v on v.card_id = c.id
                      where c.id in (${cardsOf(scope)})), '') as version,
            to_char((now() at time zone :timeZone)::date, 'YYYY-MM-DD') as today,
            extract(epoch from now() - ((now() at time zone :timeZone)::date::timestamp at time zone :timeZone))::float8
              as since_midnight`,
    { userId: scope.userId, cardId: scope.cardId ?? null, timeZone },
  )
  return row!
}

/** The holders counted over each range (days in the owner's zone, as pass_days holds them). */
export async function holderCounts(scope: Scope, timeZone: string, ranges: DayRange[]): Promise<HolderCounts[]> {
  // Read before the rows: a change after it moves the version, so counts stored under it are at worst newer.
  const { version, today, since_midnight: sinceMidnight } = await pastVersion(scope, timeZone)
  return Promise.all(
    ranges.map(async ({ from, to }) => {
      // Days are YYYY-MM-DD: their order is the strings'.
      const split = to <= today ? to : from > today ? from : today
      const key = [scope.userId, scope.cardId ?? '*', timeZone, from, split, version].join('|')
      let before = from < split ? past.get(key) : { activeHolders: 0, stampedHolders: 0, returningHolders: 0 }
      if (!before) {
        before = await countRange(scope, from, split)
        // Right after midnight yesterday's last rows may not have committed: counted again until they must have.
        if (split < today || sinceMidnight >= LATE_COMMIT_SECONDS) {
          past.delete(key)
          past.set(key, before)
          if (past.size > PAST_LIMIT) past.delete(past.keys().next().value!)
        }
      }
      if (split >= to) return before
      const added = await countAdded(scope, from, split, to)
      return {
        activeHolders: before.activeHolders + added.activeHolders,
        stampedHolders: before.stampedHolders + added.stampedHolders,
        returningHolders: before.returningHolders + added.returningHolders,
      }
    }),
  )
}
