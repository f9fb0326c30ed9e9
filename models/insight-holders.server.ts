import { type DayRange } from '#app/utils/insight-range.ts'
import { cardsOf, pastFigures, pastState, splitAtToday, type PastScope as Scope } from './insight-past.server.ts'
import { selectRows } from './transaction.server.ts'

/**
 * Holders counted over a range of days: active (a visit), stamped (a stamp), returning (stamps on two or more days).
 * They are distinct passes, which no per-day sum gives, so a year of them means grouping every pass_days row of the
 * year by pass (a million rows at a million events: over a second). The range's days before the database's today are
 * counted once per version of them (insight-past.server.ts), and the days from today on are added from their own few
 * rows, each pass checked against its past days. docs/decisions/058-insight-rollups.md.
 */
export type HolderCounts = { activeHolders: number; stampedHolders: number; returningHolders: number }

const pastCounts = pastFigures<HolderCounts>('holders')

/** The holders counted from the rows of [from, to) alone. */
async function countRange(scope: Scope, from: string, to: string): Promise<HolderCounts> {
  const [row] = await selectRows<HolderCounts>(
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
  const [row] = await selectRows<HolderCounts>(
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

/** The holders counted over each range (days in the owner's zone, as pass_days holds them). */
export async function holderCounts(scope: Scope, timeZone: string, ranges: DayRange[]): Promise<HolderCounts[]> {
  const state = await pastState(scope, timeZone)
  return Promise.all(
    ranges.map(async ({ from, to }) => {
      const split = splitAtToday({ from, to }, state.today)
      const before =
        from < split
          ? await pastCounts.of(scope, timeZone, { from, split }, state, () => countRange(scope, from, split))
          : { activeHolders: 0, stampedHolders: 0, returningHolders: 0 }
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
