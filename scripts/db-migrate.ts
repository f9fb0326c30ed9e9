import { commandEnv, describeError, fail } from './command.ts'

/*
 * `npm run db:migrate`: applies pending migrations and prints what it applied. Works against DATABASE_URL, against
 * the embedded database in DATA_DIR (opening it itself when no server holds it), and through a running server's
 * socket when one does. Any failure is one line on stderr and exit code 1.
 */

const env = commandEnv()

// Loaded only once the configuration is valid: a wrong value is reported at once, without loading the database.
const { openDatabase } = await import('#app/server/database-lifecycle.server.ts')
const { getSequelize } = await import('#app/server/db.server.ts')
const { migrateUp } = await import('#app/server/migrate.server.ts')

let database: Awaited<ReturnType<typeof openDatabase>> | undefined
try {
  database = await openDatabase(env, { role: 'command' })
  const applied = await migrateUp(getSequelize())
  if (applied.length === 0) {
    console.log(`No pending migrations: ${database.description} is up to date.`)
  } else {
    console.log(`Applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to ${database.description}:`)
    for (const name of applied) console.log(`  ${name}`)
  }
  await database.close()
} catch (error) {
  await database?.close().catch(() => {})
  fail(`Migration failed: ${describeError(error)}`)
}
