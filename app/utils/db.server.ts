import path from 'node:path'
import { remember } from '@epic-web/remember'
import pg from 'pg'
import { Sequelize, type Options } from 'sequelize'
import { EMBEDDED_SOCKET_PORT } from './embedded-db.server.ts'
import { getEnv } from './env.server.ts'

// node-postgres returns bigint (count(*), bigserial) as strings by default; our counts fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10))

export const POOL_MAX = 10

/** Where the app's pools connect: the PostgreSQL server of DATABASE_URL, or the embedded database's socket. */
export function databaseConnectionOptions(env = getEnv()): Options {
  const common: Options = {
    dialect: 'postgres',
    dialectModule: pg,
    logging: false,
    pool: { max: POOL_MAX, min: 0, idle: 10_000, acquire: 15_000, evict: 5_000 },
    define: { underscored: true, timestamps: true },
  }
  if (env.DATABASE_URL) {
    const url = new URL(env.DATABASE_URL)
    return {
      ...common,
      host: url.hostname,
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

/** The process's one Sequelize instance, shared by server.ts and the Remix build (and kept across dev reloads). */
export function getSequelize(): Sequelize {
  return remember('sequelize', () => new Sequelize(databaseConnectionOptions()))
}

/** Answers within `timeoutMs` whether the database runs a query. */
export async function isDatabaseHealthy(timeoutMs = 2_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs)
  })
  const probe = getSequelize()
    .query('select 1', { raw: true })
    .then(() => true)
    .catch(() => false)
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
