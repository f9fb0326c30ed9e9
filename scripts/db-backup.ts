import fs from 'node:fs'
import path from 'node:path'
import { commandEnv, describeError, fail } from './command.ts'

/*
 * `npm run db:backup [-- <file>]`: a consistent copy of the embedded database in DATA_DIR (PGlite's dump of its data
 * folder, gzipped tar), made by the running server when there is one, or by this command when none holds the folder.
 * Without a file name it writes DATA_DIR/backups/stampwise-<UTC time>.tar.gz. Any failure: one line, exit code 1.
 */

const env = commandEnv()
if (env.DATABASE_URL)
  fail('DATABASE_URL is set: db:backup copies the embedded database; back up a PostgreSQL server with pg_dump')
const [file, ...extra] = process.argv.slice(2)
if (extra.length) fail('Usage: npm run db:backup [-- <file>]')

const { backupEmbeddedDatabase, defaultBackupFile } = await import('#app/server/embedded-backup.server.ts')
try {
  const target = file ?? defaultBackupFile(env.DATA_DIR)
  if (!file) fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 })
  const result = await backupEmbeddedDatabase(env.DATA_DIR, target)
  const by = result.through === 'server' ? 'by the running server' : 'with no server running'
  console.log(
    `Backed up ${path.resolve(env.DATA_DIR)} (${by}) to ${result.file} (${Math.ceil(result.bytes / 1024)} KiB)`,
  )
} catch (error) {
  fail(`Backup failed: ${describeError(error)}`)
}
