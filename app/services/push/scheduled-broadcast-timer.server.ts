/**
 * The handle on this process's scheduled-broadcast timer (scheduled-broadcast-jobs.server.ts keeps it), kept on
 * globalThis: the copy of the app a route runs in (the build) and the copy that started the job queue reach the same
 * timer (docs/decisions/001-process-and-module-graph.md). Without a running job queue it does nothing: the row is
 * stored, and whichever process runs the queue releases it.
 */
const TIMER = Symbol.for('stampwise.scheduledBroadcastTimer')
type Global = { [TIMER]?: { arm: () => void } }

/** Tells this process's timer that the next due broadcast may have changed (one scheduled or cancelled here). */
export function armScheduledBroadcastTimer() {
  ;(globalThis as Global)[TIMER]?.arm()
}

/** Installs (or, with null, removes) this process's timer handle. */
export function setScheduledBroadcastTimer(handle: { arm: () => void } | null) {
  if (handle) (globalThis as Global)[TIMER] = handle
  else delete (globalThis as Global)[TIMER]
}

/** The installed handle, so a stopping queue removes only its own. */
export const currentScheduledBroadcastTimer = () => (globalThis as Global)[TIMER] ?? null
