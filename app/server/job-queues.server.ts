import type PgBoss from 'pg-boss'

/** PostgreSQL's codes for a deadlock and for a row another transaction inserted first. */
const RACE_CODES = new Set(['40P01', '23505'])

/**
 * pg-boss 10's create_queue() deadlocks when two processes create the same queue at once (each holds the row the
 * other's partition waits for), as several instances starting together on an empty database do. A queue that
 * exists is left alone (createQueue would not change it either); a lost race is retried after a short pause, by
 * which time the winner's queue usually exists.
 */
export async function createQueueIfMissing(boss: PgBoss, name: string, options?: PgBoss.Queue) {
  for (let attempt = 1; ; attempt++) {
    if (await boss.getQueue(name)) return
    try {
      await boss.createQueue(name, options)
      return
    } catch (error) {
      const code = (error as { code?: string }).code
      if (attempt >= 5 || !code || !RACE_CODES.has(code)) throw error
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200 * attempt))
    }
  }
}
