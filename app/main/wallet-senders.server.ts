import { AsyncResource } from 'node:async_hooks'
import { logger } from '#app/server/logger.server.ts'

/** What one run of a wallet's sender did: how many it sent, and when to try the ones that must wait (or null). */
export type WalletRun = { sent: number; retryLaterInMs: number | null }

/**
 * A wallet's sender in this process (docs/decisions/059-wallet-updates-woken-in-process.md): `wake` runs `deliver`
 * at once, outside the request that woke it, one run at a time; a wake during a run makes one more run after it, so
 * rows committed while a run was claiming are sent without waiting for a poll. Rows are claimed with leases, so a run
 * here beside the queue's job (in this process or another) sends each row once. `afterRun` reports a run (logs,
 * hooks, the job asked for later); a failed run is logged and left to the resume job.
 */
export function createWalletSender({
  name,
  deliver,
  afterRun,
}: {
  name: string
  deliver: () => Promise<WalletRun>
  afterRun: (run: WalletRun) => Promise<void>
}) {
  let running: Promise<void> | null = null
  let again = false
  const runUntilQuiet = async () => {
    try {
      do {
        again = false
        await afterRun(await deliver())
      } while (again)
    } catch (err) {
      logger.warn({ err, wallet: name }, 'wallet updates not sent here; the resume job will send them')
    } finally {
      running = null
    }
  }
  // Bound to the queue's start: a stamp's statement count (Server-Timing) does not take in the sending it woke.
  const start = AsyncResource.bind(() => {
    running = runUntilQuiet()
  })
  return {
    wake() {
      if (running) again = true
      else start()
    },
    /** Resolves once no run is under way (for the queue's stop). */
    settled: async () => {
      while (running) await running
    },
  }
}
