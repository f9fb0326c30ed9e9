import pg from 'pg'
import { Sequelize } from 'sequelize'
import { parseEnv, type Env } from '#app/server/env.server.ts'
import { commandEnv, describeError, fail } from './command.ts'

/*
 * `npm run db:copy-to -- <postgres url>`: moves every row of the embedded database in DATA_DIR to a PostgreSQL
 * server, for an operator leaving the embedded database. The source is migrated if it needs it (as a server start
 * would), the target is refused unless empty, then migrated and filled in one transaction (database-copy.server.ts).
 * Run it with the server stopped: rows written after the copy's snapshot would stay behind. Then start the app
 * with DATABASE_URL set to the target. Any failure: one line, exit code 1, and no row in the target.
 */

const env = commandEnv()
if (env.DATABASE_URL) fail('DATABASE_URL is set: db:copy-to copies the embedded database in DATA_DIR; unset it')
const [targetUrl, ...extra] = process.argv.slice(2)
if (!targetUrl || extra.length) fail('Usage: npm run db:copy-to -- postgres://user:password@host:5432/database')
let targetEnv: Env
try {
  targetEnv = parseEnv({ DATABASE_URL: targetUrl })
} catch {
  fail(
    `Not a PostgreSQL URL: ${targetUrl.replace(/\/\/[^@/]*@/, '//…@')} (expected postgres://user:password@host:5432/database)`,
  )
}
const url = new URL(targetUrl)
const targetName = `${url.host}${url.pathname}`

const { openAndMigrate } = await import('#app/server/database-lifecycle.server.ts')
const { databaseConnectionOptions } = await import('#app/server/db.server.ts')
const { migrateUp } = await import('#app/server/migrate.server.ts')
const { copyDatabase, tablesInForeignKeyOrder, tablesWithRows, TargetNotEmptyError } =
  await import('#app/server/database-copy.server.ts')

const target = new pg.Client({ connectionString: targetUrl })
try {
  await target.connect()
} catch (error) {
  fail(`Cannot connect to ${targetName}: ${describeError(error)}`)
}

let source: Awaited<ReturnType<typeof openAndMigrate>>['database'] | undefined
const sourceClient = (() => {
  const options = databaseConnectionOptions(env)
  return new pg.Client({ host: options.host, port: options.port, user: options.username, database: options.database })
})()
try {
  // Refused before anything is written to it, migrations included.
  const holding = await tablesWithRows(target, await tablesInForeignKeyOrder(target))
  if (holding.length) throw new TargetNotEmptyError(holding)

  const opened = await openAndMigrate(env, { role: 'command', maxConnections: 4 })
  source = opened.database
  if (opened.applied.length) console.log(`Migrated the embedded database first: ${opened.applied.join(', ')}`)
  const targetSequelize = new Sequelize(databaseConnectionOptions(targetEnv))
  try {
    const applied = await migrateUp(targetSequelize)
    if (applied.length)
      console.log(`Migrated ${targetName}: ${applied.length} migration${applied.length === 1 ? '' : 's'}`)
  } finally {
    await targetSequelize.close()
  }

  await sourceClient.connect()
  const result = await copyDatabase(sourceClient, target)
  const total = Object.values(result.tables).reduce((sum, count) => sum + count, 0)
  console.log(`Copied ${total} rows from ${source.description} to ${targetName}:`)
  for (const [table, count] of Object.entries(result.tables)) console.log(`  ${table.padEnd(28)} ${count}`)
  console.log(`and ${result.sequences} sequences. Start the app with DATABASE_URL set to it.`)
} catch (error) {
  await sourceClient.end().catch(() => {})
  await target.end().catch(() => {})
  await source?.close().catch(() => {})
  fail(`Copy failed; no row reached ${targetName}: ${describeError(error)}`)
}
await sourceClient.end()
await target.end()
await source.close()
