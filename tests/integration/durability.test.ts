import fs from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { amcheck } from '@electric-sql/pglite/contrib/amcheck'
import pg from 'pg'
import { afterEach, describe, expect, test, vi } from 'vitest'
import {
  acquireDataDirLock,
  embeddedPgDataDir,
  embeddedSocketPath,
  readLockHolder,
  startEmbeddedDatabase,
} from '#app/server/embedded-db.server.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { killChildren, runTs } from '#tests/support/child-process.ts'
import { createDataDir, createServerDatabase } from '#tests/support/scratch-databases.ts'

/*
 * SIGKILL in the middle of writes loses no committed row. tests/fixtures/writer.ts commits one audit_log row per
 * transaction and prints its id only after the commit returned; we kill it while it writes, twice (the second
 * writer reopens what the first left behind), then check every printed id is in the database and that the
 * indexes agree with the table. docs/decisions/003-durability.md says what this covers and what it cannot.
 */

const COMMITS_PER_ROUND = 200
const ROWS = `select id from audit_log where action = 'durability-test'`
const AMCHECK = `select bt_index_check(index => i.indexrelid, heapallindexed => true)
  from pg_index i where i.indrelid = 'audit_log'::regclass`

afterEach(killChildren)

/** Runs the writer until it has printed `commits` ids, then SIGKILLs it; returns the printed ids. */
async function writeThenKill(env: Record<string, string>, commits = COMMITS_PER_ROUND) {
  const writer = runTs('tests/fixtures/writer.ts', { env })
  await writer.waitForLine((line) => line === 'ready', 60_000)
  await writer.waitForLine(() => writer.lines.length > commits, 30_000)
  writer.process.kill('SIGKILL')
  expect(await writer.exited).toEqual({ code: null, signal: 'SIGKILL' })
  expect(writer.stderr()).toBe('')
  return writer.lines.filter((line) => /^\d+$/.test(line)).map(Number)
}

async function query<T extends pg.QueryResultRow>(config: pg.ClientConfig, sql: string) {
  const client = new pg.Client(config)
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

function expectEveryCommittedRow(printed: number[], stored: number[]) {
  const storedIds = new Set(stored)
  const lost = printed.filter((id) => !storedIds.has(id))
  expect(lost, `${lost.length} of ${printed.length} committed rows were lost`).toEqual([])
  // One row at a time: only the transaction in flight at each kill may have committed without being printed.
  expect(stored.length - printed.length).toBeLessThanOrEqual(2)
}

// Its databases are its own (a data folder, a fresh server database), whatever TEST_DATABASE_URL says: the
// PostgreSQL-server run would repeat the same work and prove nothing more, so it runs in the embedded run only.
describe.skipIf(usingServer())('SIGKILL during writes', () => {
  test('the embedded database keeps every committed row, fsyncs its commits and reopens without corruption', async () => {
    const dataDir = createDataDir('durability')
    try {
      const printed = [
        ...(await writeThenKill({ DATA_DIR: dataDir.dir })),
        ...(await writeThenKill({ DATA_DIR: dataDir.dir })),
      ]
      expect(printed.length).toBeGreaterThanOrEqual(2 * COMMITS_PER_ROUND)
      // The dead writer left its lock file and socket behind; the lock names a pid that no longer runs.
      expect(fs.existsSync(embeddedSocketPath(dataDir.dir))).toBe(true)
      expect(readLockHolder(dataDir.dir)).toBeUndefined()

      const embedded = await startEmbeddedDatabase(dataDir.dir, { maxConnections: 2 })
      const client = new pg.Client({ host: embedded.socketDir, user: 'postgres', database: 'postgres' })
      try {
        await client.connect()
        const stored = (await client.query<{ id: string }>(ROWS)).rows.map((row) => Number(row.id))
        expectEveryCommittedRow(printed, stored)

        // Beyond SIGKILL: the commit is on disk (fsync), not only in the kernel's cache, when it returns.
        const settings = await client.query<{ name: string; setting: string }>(
          `select name, setting from pg_settings where name in ('fsync', 'synchronous_commit', 'wal_sync_method')
           order by name`,
        )
        expect(settings.rows).toEqual([
          { name: 'fsync', setting: 'on' },
          { name: 'synchronous_commit', setting: 'on' },
          { name: 'wal_sync_method', setting: 'fsync' },
        ])
        const fsyncSync = vi.spyOn(fs, 'fsyncSync')
        try {
          await client.query('begin')
          await client.query(`insert into audit_log (action, target_type) values ('fsync-probe', 'test')`)
          expect(fsyncSync).not.toHaveBeenCalled()
          await client.query('commit')
          expect(fsyncSync).toHaveBeenCalled()
        } finally {
          fsyncSync.mockRestore()
        }
      } finally {
        await client.end()
        await embedded.close()
      }

      const release = acquireDataDirLock(dataDir.dir)
      try {
        const db = await PGlite.create({ dataDir: embeddedPgDataDir(dataDir.dir), extensions: { amcheck } })
        try {
          await db.exec('create extension amcheck')
          expect((await db.query(AMCHECK)).rows.length).toBeGreaterThan(0)
        } finally {
          await db.close()
        }
      } finally {
        release()
      }
    } finally {
      await killChildren() // before removing the folder they hold
      dataDir.remove()
    }
  }, 120_000)

  test('the PostgreSQL server keeps every committed row', async () => {
    const database = await createServerDatabase('durability')
    try {
      const printed = [
        ...(await writeThenKill({ DATABASE_URL: database.url })),
        ...(await writeThenKill({ DATABASE_URL: database.url })),
      ]
      const rows = await query<{ id: string }>({ connectionString: database.url }, ROWS)
      expectEveryCommittedRow(
        printed,
        rows.map((row) => Number(row.id)),
      )
      await query({ connectionString: database.url }, `create extension if not exists amcheck; ${AMCHECK}`)
    } finally {
      await killChildren()
      await database.drop()
    }
  }, 60_000)
})
