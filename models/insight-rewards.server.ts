import { type DayRange } from '#app/utils/insight-range.ts'
import { cardsOf, pastFigures, pastState, splitAtToday, type PastScope } from './insight-past.server.ts'
import { selectRows } from './transaction.server.ts'

/**
 * Rewards earned over a range of days and the median time to reward (from a round's first stamp to the stamp that
 * earned it; percentile_cont(0.5), rounds without a first stamp left out of the median only), from pass_rounds by
 * their earning instant. A median is no sum: a year of rounds (100,000 at a million events) is sorted to find it
 * (0.1 s). So the days before today keep, per version of them (insight-past.server.ts), their count and the values
 * around their middle, WINDOW on each side; today's few values are merged in, and the middle of the whole is read
 * from the merge: exact whenever it falls inside the kept values, which it does unless today brings more values
 * than the window holds (then the range is read whole, as before). docs/decisions/058-insight-rollups.md.
 */
export type RewardFigures = { earned: number; medianSeconds: number | null }

/** Values kept on each side of the past days' middle; also the most of today's values merged with them. */
const WINDOW = 1000

type PastRewards = {
  earned: number
  /** Rounds with a first stamp: the median's values. */
  values: number
  /** The rank (from 0, ascending) of window[0] among the values. */
  lo: number
  window: number[]
}

const pastRewards = pastFigures<PastRewards>('rewards')

type Bounds = { from: string; to: string }

/** Binds the scope, zone and days; `:fromAt` and `:toAt` are the days' local midnights. */
const replacementsOf = (scope: PastScope, timeZone: string, { from, to }: Bounds) => ({
  userId: scope.userId,
  cardId: scope.cardId ?? null,
  timeZone,
  from,
  to,
})

const ROUNDS = `from pass_rounds o
  where o.card_id in (select id from scope)
    and o.earned_at >= :from::date::timestamp at time zone :timeZone
    and o.earned_at < :to::date::timestamp at time zone :timeZone`

/** The same value percentile_cont computes for each round (seconds, as float8). */
const SECONDS = 'extract(epoch from o.earned_at - o.first_stamp_at)::float8'

/** The range read whole: the statement every view ran before the past was kept. */
async function wholeRange(scope: PastScope, timeZone: string, bounds: Bounds): Promise<RewardFigures> {
  const [row] = await selectRows<{ earned: number; median: number | null }>(
    `with scope as (${cardsOf(scope)})
     select count(*)::int as earned,
            (percentile_cont(0.5) within group (order by ${SECONDS}) filter (where o.first_stamp_at is not null))::float8
              as median
     ${ROUNDS}`,
    replacementsOf(scope, timeZone, bounds),
  )
  return { earned: row!.earned, medianSeconds: row!.median === null ? null : Number(row!.median) }
}

/** The past days' count and the values around their middle. */
async function readPast(scope: PastScope, timeZone: string, bounds: Bounds): Promise<PastRewards> {
  const replacements = replacementsOf(scope, timeZone, bounds)
  const [counts] = await selectRows<{ earned: number; valued: number }>(
    `with scope as (${cardsOf(scope)})
     select count(*)::int as earned, count(*) filter (where o.first_stamp_at is not null)::int as valued ${ROUNDS}`,
    replacements,
  )
  const { earned, valued: values } = counts!
  if (values === 0) return { earned, values, lo: 0, window: [] }
  const lo = Math.max(0, Math.floor((values - 1) / 2) - WINDOW)
  const hi = Math.min(values - 1, Math.ceil((values - 1) / 2) + WINDOW)
  const rows = await selectRows<{ seconds: number }>(
    `with scope as (${cardsOf(scope)})
     select ${SECONDS} as seconds ${ROUNDS} and o.first_stamp_at is not null
     order by 1 offset :lo limit :count`,
    { ...replacements, lo, count: hi - lo + 1 },
  )
  return { earned, values, lo, window: rows.map((row) => Number(row.seconds)) }
}

/**
 * The median of the past values and `today` together, from the kept window, or undefined when the middle falls
 * outside it. The past values left out below the window (at most window[0]) count as -∞ and those above as +∞: that
 * changes no order statistic that lands inside [window[0], window[last]], so one that lands there is exact.
 */
export function mergedMedian(past: Pick<PastRewards, 'values' | 'lo' | 'window'>, today: number[]) {
  const total = past.values + today.length
  if (total === 0) return null
  const merged = [...past.window, ...today].sort((a, b) => a - b)
  const first = past.window[0]!
  const last = past.window.at(-1)!
  const cutBelow = past.lo > 0
  const cutAbove = past.lo + past.window.length < past.values
  const at = (rank: number) => {
    const value = merged[rank - past.lo]
    if (value === undefined || (cutBelow && value < first) || (cutAbove && value > last)) return undefined
    return value
  }
  // percentile_cont(0.5): the value at rank (n - 1) / 2, between the two ranks around it when that is no whole rank.
  const middle = (total - 1) / 2
  const lower = at(Math.floor(middle))
  const upper = at(Math.ceil(middle))
  if (lower === undefined || upper === undefined) return undefined
  return lower + (upper - lower) * (middle - Math.floor(middle))
}

/** Rewards earned and the median time to reward over each range (days in the owner's zone). */
export async function rewardFigures(scope: PastScope, timeZone: string, ranges: DayRange[]): Promise<RewardFigures[]> {
  const state = await pastState(scope, timeZone)
  return Promise.all(
    ranges.map(async (range) => {
      const split = splitAtToday(range, state.today)
      if (range.from >= split) return wholeRange(scope, timeZone, range)
      const past = await pastRewards.of(scope, timeZone, { from: range.from, split }, state, () =>
        readPast(scope, timeZone, { from: range.from, to: split }),
      )
      if (split >= range.to) {
        return { earned: past.earned, medianSeconds: mergedMedian(past, []) ?? null }
      }
      const recent = await selectRows<{ seconds: number | null }>(
        `with scope as (${cardsOf(scope)})
         select case when o.first_stamp_at is not null then ${SECONDS} end as seconds ${ROUNDS}
         limit :most`,
        { ...replacementsOf(scope, timeZone, { from: split, to: range.to }), most: WINDOW + 1 },
      )
      if (recent.length > WINDOW) return wholeRange(scope, timeZone, range)
      const today = recent.flatMap((row) => (row.seconds === null ? [] : [Number(row.seconds)]))
      const median = mergedMedian(past, today)
      if (median === undefined) return wholeRange(scope, timeZone, range)
      return { earned: past.earned + recent.length, medianSeconds: median }
    }),
  )
}
