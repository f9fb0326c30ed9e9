import path from 'node:path'
import { remember } from '@epic-web/remember'
import pg from 'pg'
import { Sequelize, type Options } from 'sequelize'
import { EMBEDDED_SOCKET_PORT } from './embedded-db.server.ts'
import { getEnv } from './env.server.ts'
import { countQuery } from './request-context.server.ts'

// node-postgres returns bigint (count(*), bigserial) as strings by default; our counts fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10))

export const POOL_MAX = 10
const CONNECT_TIMEOUT_MS = 5_000

/** Where the app's pools connect: the PostgreSQL server of DATABASE_URL, or the embedded database's socket. */
export function databaseConnectionOptions(env = getEnv()): Options {
  const common: Options = {
    dialect: 'postgres',
    dialectModule: pg,
    logging: false,
    pool: { max: POOL_MAX, min: 0, idle: 10_000, acquire: 15_000, evict: 5_000 },
    // Without it a connection attempt that gets no answer waits forever and keeps its pool slot: a few of them
    // and the pool is stuck even after the database is back.
    dialectOptions: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS },
    define: { underscored: true, timestamps: true },
  }
  if (env.DATABASE_URL) {
    const url = new URL(env.DATABASE_URL)
    return {
      ...common,
      // `?host=/var/run/postgresql` (libpq's spelling) connects through the server's Unix socket in that folder
      // (docs/decisions/062-unix-socket-to-postgresql.md).
      host: url.searchParams.get('host') || url.hostname,
      port: Number(url.port || 5432),
      username: decodeURIComponent(url.username || 'postgres'),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.slice(1) || 'postgres'),
    }
  }
  return {
    ...common,
    host: path.resolve(env.DATA_DIR), // a folder: node-postgres connects to its Unix socket
    port: EMBEDDED_SOCKET_PORT,
    username: 'postgres',
    database: 'postgres',
  }
}

/** The process's one Sequelize instance (one pool), kept across dev reloads and shared with tests' copy of it. */
export function getSequelize(): Sequelize {
  return remember('sequelize', () => {
    const sequelize = new Sequelize(databaseConnectionOptions())
    sequelize.addHook('beforeQuery', countQuery)
    return sequelize
  })
}

/**
 * Answers within `timeoutMs` whether the database runs a query. A connection that has not answered by then is
 * destroyed instead of going back to the pool: a dead connection must not make the next answers wait, nor keep
 * the pool down once the database is reachable again.
 */
export async function isDatabaseHealthy(timeoutMs = 2_000): Promise<boolean> {
  const { connectionManager } = getSequelize()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs)
  })
  let expired = false
  void timeout.then(() => (expired = true))
  const probe = (async () => {
    const connection = (await connectionManager.getConnection({ type: 'read' })) as pg.Client
    if (expired) {
      await connectionManager.releaseConnection(connection)
      return false
    }
    const answered = await Promise.race([
      connection.query('select 1').then(
        () => true,
        () => false,
      ),
      timeout,
    ])
    if (answered) await connectionManager.releaseConnection(connection)
    else await connectionManager.destroyConnection(connection)
    return answered
  })().catch(() => false)
  try {
    return await Promise.race([probe, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Tests point each file at its own database: close the shared instance and let the next call create a new one. */
export async function forgetSequelizeForTests() {
  const g = globalThis as { __remember_epic_web?: Map<string, unknown> }
  const existing = g.__remember_epic_web?.get('sequelize') as Sequelize | undefined
  g.__remember_epic_web?.delete('sequelize')
  await existing?.close().catch(() => {})
}
