import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * Figures of past days, computed once per version of those days and kept in the process (docs/decisions/058-insight-
 * rollups.md). Past days do not change but through a few writers (an undo across midnight, a removed holder, the
 * time-zone rebuild, a late commit), each of which moves its card's past_version (migration 0020). A range is split at
 * the database's today in the owner's zone: its days before are read from here under the scope's versions, the days
 * from today on are added live by the caller. Used for the holders counted over a range and for the heat map.
 */

/** Which cards: one of the owner's, or all of them (bound as :userId and :cardId). */
export type PastScope = { userId: string; cardId?: string }

/** The scope's versions of its past days (one key) and the database's today in the zone. */
export type PastState = { version: string; today: string; sinceMidnight: number }

/** A pass_days row of yesterday may still commit this long after midnight (its transaction began before it). */
const LATE_COMMIT_SECONDS = 60

export const cardsOf = (scope: PastScope) =>
  scope.cardId
    ? 'select id from cards where user_id = :userId and id = :cardId'
    : 'select id from cards where user_id = :userId'

/** Reads in flight by scope and zone: the page's figures, rewards and heat map ask at once and share one read. */
const reading = new Map<string, Promise<PastState>>()

/**
 * Read before the rows the figures come from: a change after it moves the version, so figures stored under it are at
 * worst newer than it. (A read shared with a caller that asked while it ran was still made before that caller's rows.)
 */
export function pastState(scope: PastScope, timeZone: string): Promise<PastState> {
  const key = [scope.userId, scope.cardId ?? '*', timeZone].join('|')
  let state = reading.get(key)
  if (!state) {
    state = readPastState(scope, timeZone).finally(() => reading.delete(key))
    reading.set(key, state)
  }
  return state
}

async function readPastState(scope: PastScope, timeZone: string): Promise<PastState> {
  const [row] = await getSequelize().query<{ version: string; today: string; since_midnight: number }>(
    // Each card's version, not their sum: a card deleted from the account's scope must change the key too.
    `select coalesce((select md5(string_agg(c.id || ':' || coalesce(v.past_version, 0), ',' order by c.id))
                      from cards c left join card_insight_versions v on v.card_id = c.id
                      where c.id in (${cardsOf(scope)})), '') as version,
            to_char((now() at time zone :timeZone)::date, 'YYYY-MM-DD') as today,
            extract(epoch from now() - ((now() at time zone :timeZone)::date::timestamp at time zone :timeZone))::float8
              as since_midnight`,
    {
      replacements: { userId: scope.userId, cardId: scope.cardId ?? null, timeZone },
      type: QueryTypes.SELECT,
    },
  )
  return { version: row!.version, today: row!.today, sinceMidnight: row!.since_midnight }
}

/** Where [from, to) splits into days before today and days from today on (days are YYYY-MM-DD: ordered as strings). */
export const splitAtToday = ({ from, to }: { from: string; to: string }, today: string) =>
  to <= today ? to : from > today ? from : today

/** Past figures of one kind by scope, zone, days and version; a few hundred owners' pages at most. */
export function pastFigures<T>(kind: string, limit = 500) {
  const kept = new Map<string, T>()
  return {
    /** The figures of [from, split) (all before today), from the store or computed and stored. */
    async of(
      scope: PastScope,
      timeZone: string,
      { from, split }: { from: string; split: string },
      state: PastState,
      compute: () => Promise<T>,
    ): Promise<T> {
      const key = [kind, scope.userId, scope.cardId ?? '*', timeZone, from, split, state.version].join('|')
      const found = kept.get(key)
      if (found !== undefined) return found
      const figures = await compute()
      // Right after midnight yesterday's last rows may not have committed: computed again until they must have.
      if (split < state.today || state.sinceMidnight >= LATE_COMMIT_SECONDS) {
        kept.delete(key)
        kept.set(key, figures)
        // Oldest first out (a Map keeps insertion order).
        if (kept.size > limit) kept.delete(kept.keys().next().value!)
      }
      return figures
    },
  }
}
