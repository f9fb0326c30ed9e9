import {
  claimDeliveries,
  renewDeliveryLeases,
  type ClaimedDelivery,
  type DeliveryRange,
} from '#models/delivery.server.ts'

/**
 * The rows a push chunk holds, from its claim until their outcome is stored (decision 061, push leases renewed):
 * each with the claim's attempt (its token: every claim adds one) and when its lease last started, by this process's
 * clock (read before the statement, so never later than the database's). A lease that runs out means a dead holder;
 * on a starved machine a live chunk's rows waited longer than that for a request slot, and its next claim took them
 * again: the holders got the message twice. So the chunk renews what it holds, and sends a row only while it holds it.
 */
export function heldDeliveries(leaseSeconds: number) {
  const leaseMs = leaseSeconds * 1000
  const held = new Map<string, { attempts: number; leaseFrom: number }>()
  let renewing: Promise<void> | null = null

  async function renewOlderThan(ageMs: number) {
    const from = performance.now()
    const due = [...held].filter(([, row]) => from - row.leaseFrom > ageMs)
    const renewed = new Set(
      await renewDeliveryLeases(
        due.map(([id, row]) => ({ id, attempts: row.attempts })),
        leaseSeconds,
      ),
    )
    for (const [id, row] of due) {
      if (held.get(id) !== row) continue
      if (renewed.has(id)) row.leaseFrom = from
      else held.delete(id)
    }
  }
  const renew = () => (renewing ??= renewOlderThan(leaseMs / 4).finally(() => (renewing = null)))

  return {
    async claim(range: DeliveryRange, limit: number) {
      const from = performance.now()
      const rows = await claimDeliveries(range, limit, leaseSeconds)
      for (const row of rows) held.set(row.id, { attempts: row.attempts, leaseFrom: from })
      return rows
    },
    /** Every quarter of the lease, renews the rows held for a quarter of it or more; answers the stop. */
    heartbeat() {
      // A renewal that fails is tried again before the next send, which then fails the chunk as a failed claim would.
      const timer = setInterval(() => void renew().catch(() => {}), leaseMs / 4)
      return () => clearInterval(timer)
    },
    /** Whether the claim still holds the row (renewing it first when half its lease is gone): false, do not send. */
    async holds(delivery: ClaimedDelivery) {
      for (;;) {
        const row = held.get(delivery.id)
        if (row?.attempts !== delivery.attempts) return false
        if (performance.now() - row.leaseFrom <= leaseMs / 2) return true
        await renew()
      }
    },
    release(delivery: ClaimedDelivery) {
      if (held.get(delivery.id)?.attempts === delivery.attempts) held.delete(delivery.id)
    },
  }
}
