import { describe, expect, test } from 'vitest'
import { mergedMedian } from './insight-rewards.server.ts'

/** percentile_cont(0.5) over every value, as PostgreSQL computes it. */
function median(values: number[]): number | null {
  if (!values.length) return null
  const sorted = [...values].sort((a, b) => a - b)
  const middle = (sorted.length - 1) / 2
  const lower = sorted[Math.floor(middle)]!
  const upper = sorted[Math.ceil(middle)]!
  return lower + (upper - lower) * (middle - Math.floor(middle))
}

/** The past as rewardFigures keeps it: its count and `side` values each side of its middle. */
function kept(past: number[], side: number) {
  const sorted = [...past].sort((a, b) => a - b)
  const lo = Math.max(0, Math.floor((past.length - 1) / 2) - side)
  const hi = Math.min(past.length - 1, Math.ceil((past.length - 1) / 2) + side)
  return { values: past.length, lo, window: past.length ? sorted.slice(lo, hi + 1) : [] }
}

/** A small deterministic generator: the same cases on every run. */
function random(seed: number) {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return state / 2 ** 31
  }
}

describe('the median of the kept past and today', () => {
  test('equals the median of every value whenever today holds no more values than the window', () => {
    const next = random(7)
    for (let run = 0; run < 2000; run += 1) {
      const side = 1 + Math.floor(next() * 6)
      // Few distinct values too, so that ties sit on the window's edges.
      const spread = next() < 0.3 ? 4 : 10_000
      const value = () => Math.floor(next() * spread) * 3600
      const past = Array.from({ length: Math.floor(next() * 40) }, value)
      const today = Array.from({ length: Math.floor(next() * (side + 1)) }, value)
      expect(mergedMedian(kept(past, side), today), JSON.stringify({ past, today, side })).toBe(
        median([...past, ...today]),
      )
    }
  })

  test('answers undefined (read the range whole) when the middle leaves the window, and null without values', () => {
    const past = [10, 20, 30, 40, 50, 60, 70, 80, 90]
    // Today's values all far below: the middle moves under the kept window's first value.
    expect(mergedMedian(kept(past, 1), [1, 2, 3, 4, 5])).toBeUndefined()
    expect(mergedMedian(kept(past, 4), [1, 2, 3, 4, 5])).toBe(median([...past, 1, 2, 3, 4, 5]))
    expect(mergedMedian(kept([], 3), [])).toBeNull()
    expect(mergedMedian(kept([], 3), [5, 1])).toBe(3)
  })
})
