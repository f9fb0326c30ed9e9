import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, test } from 'vitest'
import { embeddedSocketPath, readLockHolder } from '#app/server/embedded-db.server.ts'
import { migrations } from '#migrations/index.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { killChildren, runTs, runTsToEnd } from '#tests/support/child-process.ts'
import { createBlankDataDir, createDataDir, createServerDatabase } from '#tests/support/scratch-databases.ts'

/*
 * `npm run db:migrate` (scripts/db-migrate.ts) as ops run it: a separate process, against DATABASE_URL, against
 * an embedded data folder nobody holds, and through the socket of a server that holds the folder.
 */

const COMMAND = 'scripts/db-migrate.ts'
const ALL = migrations.map((migration) => migration.name)

afterEach(killChildren)

function appliedNames(stdout: string) {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('  '))
    .map((line) => line.trim())
}

async function migrationsIn(config: pg.ClientConfig) {
  const client = new pg.Client(config)
  await client.connect()
  try {
    return (await client.query<{ name: string }>('select name from schema_migrations order by name')).rows.map(
      (row) => row.name,
    )
  } finally {
    await client.end()
  }
}

// Its databases are its own (a data folder, a fresh server database), whatever TEST_DATABASE_URL says: the
// PostgreSQL-server run would repeat the same work and prove nothing more, so it runs in the embedded run only.
describe.skipIf(usingServer())('npm run db:migrate', () => {
  test('with no server running, it opens the data folder itself, migrates it and releases it', async () => {
    const dataDir = await createBlankDataDir('migrate')
    try {
      const first = await runTsToEnd(COMMAND, { env: { DATA_DIR: dataDir.dir } })
      expect(first.stderr).toBe('')
      expect(first.code).toBe(0)
      expect(first.stdout).toContain(`Applied ${ALL.length} migrations to embedded PostgreSQL in ${dataDir.dir}:`)
      expect(appliedNames(first.stdout)).toEqual(ALL)
      expect(fs.readdirSync(dataDir.dir)).toEqual(['pgdata']) // no lock file, no socket left

      const second = await runTsToEnd(COMMAND, { env: { DATA_DIR: dataDir.dir } })
      expect(second.code).toBe(0)
      expect(second.stdout.trim()).toBe(`No pending migrations: embedded PostgreSQL in ${dataDir.dir} is up to date.`)
    } finally {
      await killChildren() // before removing the folder they hold
      dataDir.remove()
    }
  }, 90_000)

  test('while a server holds the data folder, it migrates through the server’s socket', async () => {
    const dataDir = await createBlankDataDir('migrate-held')
    try {
      const server = runTs('tests/fixtures/hold-database.ts', { env: { DATA_DIR: dataDir.dir } })
      await server.waitForLine((line) => line === 'ready', 60_000)

      const result = await runTsToEnd(COMMAND, { env: { DATA_DIR: dataDir.dir } })
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('(through the running server)')
      expect(appliedNames(result.stdout)).toEqual(ALL)

      // The server kept the folder all along and sees the new schema through its own socket.
      expect(readLockHolder(dataDir.dir)).toBe(server.pid)
      expect(await migrationsIn({ host: path.resolve(dataDir.dir), user: 'postgres', database: 'postgres' })).toEqual(
        ALL,
      )

      const again = await runTsToEnd(COMMAND, { env: { DATA_DIR: dataDir.dir } })
      expect(again.code).toBe(0)
      expect(again.stdout).toContain('No pending migrations')

      server.process.kill('SIGTERM')
      expect(await server.exited).toEqual({ code: 0, signal: null })
      expect(fs.existsSync(embeddedSocketPath(dataDir.dir))).toBe(false)
      expect(readLockHolder(dataDir.dir)).toBeUndefined()
    } finally {
      await killChildren() // before removing the folder they hold
      dataDir.remove()
    }
  }, 90_000)

  test('started while the server is still opening the folder, it waits for the server instead of failing', async () => {
    const dataDir = await createBlankDataDir('migrate-race')
    try {
      const server = runTs('tests/fixtures/hold-database.ts', { env: { DATA_DIR: dataDir.dir } })
      // The server takes the lock seconds before its socket listens; make sure the command meets that moment.
      try {
        fs.writeFileSync(path.join(dataDir.dir, 'stampwise.lock'), `${server.pid}\n`, { flag: 'wx' })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      const result = await runTsToEnd(COMMAND, { env: { DATA_DIR: dataDir.dir } })
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('(through the running server)')
      expect(appliedNames(result.stdout)).toEqual(ALL)
      await server.waitForLine((line) => line === 'ready', 60_000)
      expect(readLockHolder(dataDir.dir)).toBe(server.pid)
    } finally {
      await killChildren() // before removing the folder they hold
      dataDir.remove()
    }
  }, 90_000)

  test('with DATABASE_URL, it migrates the PostgreSQL server', async () => {
    const database = await createServerDatabase('migrate')
    try {
      const first = await runTsToEnd(COMMAND, { env: { DATABASE_URL: database.url } })
      expect(first.stderr).toBe('')
      expect(first.code).toBe(0)
      expect(appliedNames(first.stdout)).toEqual(ALL)
      expect(await migrationsIn({ connectionString: database.url })).toEqual(ALL)

      const second = await runTsToEnd(COMMAND, { env: { DATABASE_URL: database.url } })
      expect(second.code).toBe(0)
      expect(second.stdout).toContain('No pending migrations')
    } finally {
      await database.drop()
    }
  }, 60_000)

  test.each([
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['PORT', { PORT: 'abc' }],
    ['SESSION_SECRET', { NODE_ENV: 'production' }],
  ])('an invalid %s stops it with one line on stderr, before it touches anything', async (name, env) => {
    const dataDir = createDataDir('migrate-invalid')
    const missing = path.join(dataDir.dir, 'not-created')
    try {
      const result = await runTsToEnd(COMMAND, { env: { DATA_DIR: missing, ...env } })
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      const lines = result.stderr.split('\n').filter(Boolean)
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${name} `))
      expect(fs.existsSync(missing)).toBe(false)
    } finally {
      await killChildren() // before removing the folder they hold
      dataDir.remove()
    }
  })
})
