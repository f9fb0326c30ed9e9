import { getSequelize } from './db.server.ts'
import {
  freshDatabaseTemplate,
  startEmbeddedDatabase,
  waitForEmbeddedServer,
  type EmbeddedDatabase,
} from './embedded-db.server.ts'
import { type Env } from './env.server.ts'
import { migrateUp } from './migrate.server.ts'

type Logger = { info: (message: string) => void }

export type OpenDatabase = {
  /** Where the data lives, for the start-up line. */
  description: string
  close: () => Promise<void>
}

/**
 * Makes the database reachable for this process.
 * - DATABASE_URL: a PostgreSQL server; nothing to start.
 * - The server process: opens the embedded database and serves it on DATA_DIR's socket.
 * - A command (`db:migrate`, `admin`, backups): goes through a running server's socket when there is one,
 *   and opens the data folder itself only when no server holds it.
 */
export async function openDatabase(
  env: Env,
  { role, maxConnections }: { role: 'server' | 'command'; maxConnections?: number },
): Promise<OpenDatabase> {
  const sequelize = getSequelize()
  if (env.DATABASE_URL) {
    const url = new URL(env.DATABASE_URL)
    const socket = url.searchParams.get('host')
    const at = socket ? `the socket in ${socket} (port ${url.port || 5432})` : url.host
    return { description: `PostgreSQL at ${at}${url.pathname}`, close: () => sequelize.close() }
  }
  let embedded: EmbeddedDatabase | undefined
  if (role === 'server' || !(await waitForEmbeddedServer(env.DATA_DIR))) {
    embedded = await startEmbeddedDatabase(env.DATA_DIR, {
      maxConnections,
      loadDataDir: await freshDatabaseTemplate(env.DATA_DIR),
    })
  }
  return {
    description: `embedded PostgreSQL in ${env.DATA_DIR}${embedded ? '' : ' (through the running server)'}`,
    close: async () => {
      await sequelize.close()
      await embedded?.close()
    },
  }
}

/** Opens the database and applies pending migrations (what the server does at start). */
export async function openAndMigrate(env: Env, options: Parameters<typeof openDatabase>[1], logger?: Logger) {
  const database = await openDatabase(env, options)
  try {
    const applied = await migrateUp(getSequelize(), logger)
    return { database, applied }
  } catch (error) {
    await database.close().catch(() => {})
    throw error
  }
}
