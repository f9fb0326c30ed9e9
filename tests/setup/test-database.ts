import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { Sequelize } from 'sequelize'
import { databaseConnectionOptions } from '#app/server/db.server.ts'
import { startEmbeddedDatabase } from '#app/server/embedded-db.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { migrateUp } from '#app/server/migrate.server.ts'

/**
 * Test databases: a migrated template is made once per run (global setup), and every test file gets its own
 * copy, so tests never share state. Embedded by default; the PostgreSQL server when TEST_DATABASE_URL is set.
 */

export const usingServer = () => Boolean(process.env.TEST_DATABASE_URL)
const templateTar = () => path.join(os.tmpdir(), `stampwise-test-template-${process.env.STAMPWISE_TEST_RUN}.tar`)
const templateDbName = () => `stampwise_tpl_${process.env.STAMPWISE_TEST_RUN}`
/** What each file's copy is named after (a server database, or an embedded folder in the temporary directory). */
const copyPrefix = () => `stampwise_t_${process.env.STAMPWISE_TEST_RUN}_`

function serverUrl(database: string) {
  const url = new URL(process.env.TEST_DATABASE_URL!)
  url.pathname = `/${database}`
  return url.toString()
}

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

async function migrateWith(env: ReturnType<typeof parseEnv>) {
  const sequelize = new Sequelize(databaseConnectionOptions(env))
  try {
    await migrateUp(sequelize)
  } finally {
    await sequelize.close()
  }
}

/** Global setup: build the migrated template. */
export async function createTemplate() {
  if (usingServer()) {
    await adminQuery(`drop database if exists ${templateDbName()}`)
    await adminQuery(`create database ${templateDbName()}`)
    await migrateWith(parseEnv({ DATABASE_URL: serverUrl(templateDbName()) }))
    return
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-tpl-'))
  const embedded = await startEmbeddedDatabase(dir, { maxConnections: 4 })
  try {
    await migrateWith(parseEnv({ DATA_DIR: dir }))
    const dump = await embedded.db.dumpDataDir('none')
    fs.writeFileSync(templateTar(), Buffer.from(await dump.arrayBuffer()))
  } finally {
    await embedded.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Global teardown: the template, and every file's copy still there. A file whose tests are all skipped (the
 * server-only files on the embedded run, and the other way round) never runs its afterAll, so its copy would stay:
 * a database on the server, a folder in the temporary directory, a few each run.
 */
export async function dropTemplate() {
  if (usingServer()) {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await client.connect()
    try {
      const { rows } = await client.query<{ datname: string }>(
        `select datname from pg_database where datname like $1`,
        [`${copyPrefix()}%`],
      )
      for (const { datname } of rows) await client.query(`drop database if exists ${datname} with (force)`)
      await client.query(`drop database if exists ${templateDbName()} with (force)`)
    } finally {
      await client.end()
    }
    return
  }
  fs.rmSync(templateTar(), { force: true })
  for (const entry of fs.readdirSync(os.tmpdir())) {
    if (entry.startsWith(copyPrefix())) fs.rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true })
  }
}

export type TestDatabase = {
  /** Environment variables that point the app at this database. */
  env: Record<string, string>
  /** Same database, for a second process (e.g. a child the test kills). Embedded: the socket folder. */
  drop: () => Promise<void>
}

/** A fresh copy of the template for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `${copyPrefix()}${crypto.randomBytes(4).toString('hex')}`
  if (usingServer()) {
    await adminQuery(`create database ${name} template ${templateDbName()}`)
    return {
      env: { DATABASE_URL: serverUrl(name) },
      drop: () => adminQuery(`drop database if exists ${name} with (force)`),
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), copyPrefix()))
  const template = new Blob([fs.readFileSync(templateTar())])
  // In memory: a test's database outlives no process, and is reached through the socket only.
  const embedded = await startEmbeddedDatabase(dir, { loadDataDir: template, maxConnections: 32, storage: 'memory' })
  return {
    env: { DATA_DIR: dir },
    drop: async () => {
      await embedded.close()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
