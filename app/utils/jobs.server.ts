import PgBoss from 'pg-boss'
import { databaseConnectionOptions } from './db.server.ts'
import { getEnv } from './env.server.ts'
import { logger } from './logger.server.ts'
import { runPlanHousekeeping } from './plan-housekeeping.server.ts'

export const PLAN_HOUSEKEEPING_QUEUE = 'plan-housekeeping'
/** Every 5 minutes: a trial that ends at 10:02 is ended by 10:05 in the stored data (pages know at once). */
export const PLAN_HOUSEKEEPING_CRON = '*/5 * * * *'

/**
 * pg-boss on the app's own database (the embedded one through its socket, or the server): schedules survive a
 * restart, and several processes share one schedule (pg-boss runs each cron tick once).
 */
export async function startJobs(env = getEnv()) {
  const connection = databaseConnectionOptions(env)
  const boss = new PgBoss({
    host: connection.host,
    port: connection.port,
    user: connection.username,
    password: connection.password ?? undefined,
    database: connection.database,
    max: 3,
    application_name: 'stampwise-jobs',
  })
  boss.on('error', (err) => logger.error({ err }, 'job queue error'))
  await boss.start()
  await boss.createQueue(PLAN_HOUSEKEEPING_QUEUE)
  await boss.schedule(PLAN_HOUSEKEEPING_QUEUE, PLAN_HOUSEKEEPING_CRON, {}, { tz: 'UTC' })
  await boss.work(PLAN_HOUSEKEEPING_QUEUE, async () => {
    const result = await runPlanHousekeeping()
    if (result.applied || result.notices) logger.info(result, 'plan housekeeping')
  })
  // Catch up at once after a restart rather than waiting for the next tick.
  await boss.send(PLAN_HOUSEKEEPING_QUEUE, {}, { singletonKey: 'startup', singletonSeconds: 60 })
  return {
    boss,
    stop: () => boss.stop({ graceful: true, wait: true, timeout: 10_000 }),
  }
}
