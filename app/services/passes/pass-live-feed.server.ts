import { logger } from '#app/server/logger.server.ts'
import { getPassPageVersion, getPassPageVersions } from '#models/pass.server.ts'

/**
 * The open passes' change feed (issue 30, item 1; docs/decisions/050-open-pass-refresh.md). Each open pass page
 * (with JavaScript) holds one event stream; the process keeps them in memory by pass id, and once a second asks the
 * database, in ONE statement for all of them, for their page versions (the render cache's: the pass row and its
 * card's, moved by triggers on every stamp, undo, redemption and design change). A stream whose version moved gets
 * a 'change' event, and the page reloads its data. Because the database is asked, a stamp made by another instance
 * on the same database shows too, and nothing needs LISTEN/NOTIFY (which PGlite's socket does not carry).
 */

export type LiveListener = {
  /** The version the page shows; moved when a change is sent. */
  version: string
  /** Writes one server-sent event (or comment) to the page's stream. */
  write: (chunk: string) => void
  /** Ends the stream (the pass is gone, or the process stops). */
  end: () => void
}

/** How often the open passes' versions are read: the budget is 2 s from a stamp to the open page. */
export const LIVE_POLL_MS = 1_000
/** A comment on every stream this often, so proxies and phones do not drop a quiet connection. */
const HEARTBEAT_MS = 25_000
/** Pages one pass may hold open at once (a holder's tabs and devices); more are refused, not queued. */
export const MOST_LISTENERS_PER_PASS = 10

const listeners = new Map<string, Set<LiveListener>>()
let pollTimer: NodeJS.Timeout | undefined
let heartbeatTimer: NodeJS.Timeout | undefined
let polling = false

export const changeEvent = (version: string) => `event: change\ndata: ${version}\n\n`

/** Registers an open page; returns the function that forgets it, or null when the pass has too many already. */
export function watchPass(passId: string, listener: LiveListener): (() => void) | null {
  let set = listeners.get(passId)
  if (!set) listeners.set(passId, (set = new Set()))
  if (set.size >= MOST_LISTENERS_PER_PASS) return null
  set.add(listener)
  startTimers()
  return () => {
    const current = listeners.get(passId)
    if (!current) return
    current.delete(listener)
    if (current.size === 0) listeners.delete(passId)
    if (listeners.size === 0) stopTimers()
  }
}

/** How many pages are open now (the benchmark and the tests read it). */
export function openPassPages() {
  let count = 0
  for (const set of listeners.values()) count += set.size
  return count
}

/**
 * The open passes' ids are read in batches of this many: each statement stays small (about 18 KB of ids), and 5,000
 * open pages cost 10 statements a second, not 5,000.
 */
const POLL_BATCH = 500

/** One read of every open pass's version; a moved one gets 'change', a deleted one ends its streams. */
export async function pollOpenPasses() {
  if (polling || listeners.size === 0) return
  polling = true
  try {
    const ids = [...listeners.keys()]
    for (let start = 0; start < ids.length; start += POLL_BATCH) {
      const batch = ids.slice(start, start + POLL_BATCH)
      const versions = await getPassPageVersions(batch)
      for (const passId of batch) {
        const version = versions.get(passId)
        // Not found: asked again alone before its pages are told it is gone (a removed pass is rare; a wrong
        // ending would leave a page without updates).
        if (version === undefined) await confirmGone(passId)
        else notify(passId, version)
      }
    }
  } catch (error) {
    // The database out of reach for a moment: the next tick asks again; the pages keep what they show.
    logger.warn({ err: error }, 'live pass feed: could not read the open passes')
  } finally {
    polling = false
  }
}

function notify(passId: string, version: string) {
  for (const listener of listeners.get(passId) ?? []) {
    if (version === listener.version) continue
    listener.version = version
    listener.write(changeEvent(version))
  }
}

async function confirmGone(passId: string) {
  const version = await getPassPageVersion(passId)
  if (version !== null) return notify(passId, version)
  for (const listener of [...(listeners.get(passId) ?? [])]) listener.end()
}

function startTimers() {
  pollTimer ??= setInterval(() => void pollOpenPasses(), LIVE_POLL_MS).unref()
  heartbeatTimer ??= setInterval(() => {
    for (const set of listeners.values()) for (const listener of set) listener.write(': still here\n\n')
  }, HEARTBEAT_MS).unref()
}

function stopTimers() {
  clearInterval(pollTimer)
  clearInterval(heartbeatTimer)
  pollTimer = undefined
  heartbeatTimer = undefined
}

/** At shutdown: every stream ends, so the server's close is not held open by them (the pages reconnect elsewhere). */
export function closeAllPassStreams() {
  for (const set of [...listeners.values()]) for (const listener of [...set]) listener.end()
  listeners.clear()
  stopTimers()
}
