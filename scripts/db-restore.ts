import path from 'node:path'
import { commandEnv, describeError, fail } from './command.ts'

/*
 * `npm run db:restore -- <file>`: replaces the embedded database in DATA_DIR with a backup made by db:backup. Refuses
 * while a server (or any process) holds the folder; keeps the previous database folder aside, and puts it back when
 * the backup does not open. Any failure: one line, exit code 1.
 */

const env = commandEnv()
if (env.DATABASE_URL) fail('DATABASE_URL is set: db:restore restores the embedded database in DATA_DIR')
const [file, ...extra] = process.argv.slice(2)
if (!file || extra.length) fail('Usage: npm run db:restore -- <backup file>')

const { restoreEmbeddedDatabase } = await import('#app/server/embedded-backup.server.ts')
try {
  const { keptAside, tables } = await restoreEmbeddedDatabase(env.DATA_DIR, file)
  const rows = Object.values(tables).reduce((sum, count) => sum + count, 0)
  console.log(
    `Restored ${path.resolve(file)} into ${path.resolve(env.DATA_DIR)}: ${Object.keys(tables).length} tables, ${rows} rows.`,
  )
  if (keptAside) console.log(`The previous database is kept in ${keptAside}; delete it once you no longer need it.`)
} catch (error) {
  fail(`Restore failed: ${describeError(error)}`)
}
