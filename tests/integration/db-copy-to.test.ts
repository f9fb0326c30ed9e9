import pg from 'pg'
import { Sequelize } from 'sequelize'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { databaseConnectionOptions } from '#app/server/db.server.ts'
import { startEmbeddedDatabase } from '#app/server/embedded-db.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { migrateUp } from '#app/server/migrate.server.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { killChildren, runTsToEnd } from '#tests/support/child-process.ts'
import { createBlankDataDir, createServerDatabase } from '#tests/support/scratch-databases.ts'
import { seedEveryTable } from '#tests/support/seed-every-table.ts'
import { checksums, readSequences, readTableRows, type TableRows } from '#tests/support/table-rows.ts'

/*
 * `npm run db:copy-to -- <url>` (scripts/db-copy-to.ts): an embedded database with a row in every table moves to a
 * fresh database on the PostgreSQL server, table for table and sequence for sequence; a target holding rows is
 * refused; a copy that fails half-way leaves no row behind and can simply be run again.
 *
 * Both ends are scratch databases of their own (an embedded folder, a database on the server), whatever this run's
 * TEST_DATABASE_URL: the test would do the same work in both runs, so it runs in the embedded one only.
 */

const COMMAND = 'scripts/db-copy-to.ts'
let dataDir: Awaited<ReturnType<typeof createBlankDataDir>>
let source: { rows: TableRows; sequences: Record<string, string | null> }
const drops: Array<() => Promise<void>> = []

async function withClient<T>(config: pg.ClientConfig, run: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client(config)
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

async function scratchTarget(label: string) {
  const database = await createServerDatabase(label)
  drops.push(database.drop)
  return database
}

const copyTo = (url: string) => runTsToEnd(COMMAND, { env: { DATA_DIR: dataDir.dir }, args: [url] })
const withoutMigrations = ({ schema_migrations: _migrations, ...rest }: TableRows) => rest

beforeAll(async () => {
  if (usingServer()) return
  dataDir = await createBlankDataDir('copy-to')
  const embedded = await startEmbeddedDatabase(dataDir.dir, { maxConnections: 4 })
  try {
    const sequelize = new Sequelize(databaseConnectionOptions(parseEnv({ DATA_DIR: dataDir.dir })))
    await migrateUp(sequelize)
    await sequelize.close()
    source = await withClient({ host: embedded.socketDir, user: 'postgres', database: 'postgres' }, async (client) => {
      await seedEveryTable(client, 'a')
      await seedEveryTable(client, 'b')
      return { rows: await readTableRows(client), sequences: await readSequences(client) }
    })
  } finally {
    await embedded.close() // the command opens the folder itself, as with the server stopped
  }
}, 120_000)

afterAll(async () => {
  await killChildren()
  for (const drop of drops) await drop()
  dataDir?.remove()
})

describe.skipIf(usingServer())('npm run db:copy-to', () => {
  test('the seed reaches every table, so the comparisons below compare something everywhere', () => {
    const empty = Object.entries(source.rows).filter(([, rows]) => rows.length === 0)
    expect(empty.map(([name]) => name)).toEqual([])
    expect(Object.keys(source.rows).length).toBeGreaterThan(15)
  })

  test('copies every row of every table and every sequence to a fresh database, then refuses it as not empty', async () => {
    const target = await scratchTarget('copy')
    const result = await copyTo(target.url)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Copied \d+ rows from embedded PostgreSQL in .* to 127\.0\.0\.1:5432\//m)

    const copied = await withClient({ connectionString: target.url }, async (client) => ({
      rows: await readTableRows(client),
      sequences: await readSequences(client),
    }))
    // Same rows (the content versions and updated_at stamps included: triggers stayed off while rows arrived).
    expect(checksums(withoutMigrations(copied.rows))).toEqual(checksums(withoutMigrations(source.rows)))
    expect(copied.rows.schema_migrations!.map((row) => JSON.parse(row).name)).toEqual(
      source.rows.schema_migrations!.map((row) => JSON.parse(row).name),
    )
    expect(copied.sequences).toEqual(source.sequences)
    // Sequences go on where the source stopped: a new id follows the copied ones.
    const next = await withClient(
      { connectionString: target.url },
      async (client) =>
        (
          await client.query<{ id: string }>(
            `insert into audit_log (action, target_type) values ('after copy', 'test') returning id::text`,
          )
        ).rows[0]!.id,
    )
    expect(BigInt(next)).toBe(BigInt(source.sequences.audit_log_id_seq!) + 1n)

    const again = await copyTo(target.url)
    expect(again.code).toBe(1)
    expect(again.stdout).toBe('')
    expect(again.stderr).toMatch(
      /^Copy failed; no row reached .*: the target database is not empty: .*users.* hold rows\n$/,
    )
  }, 120_000)

  test('a copy that fails half-way leaves no row in the target, and runs again once the cause is gone', async () => {
    const target = await scratchTarget('copyretry')
    const sequelize = new Sequelize(databaseConnectionOptions(parseEnv({ DATABASE_URL: target.url })))
    await migrateUp(sequelize)
    await sequelize.close()
    // A target that turns down one late table's rows (stamp_events comes after users, cards and passes).
    await withClient({ connectionString: target.url }, (client) =>
      client.query(`alter table stamp_events add constraint refuse_copy check (count < 0)`),
    )
    const failed = await copyTo(target.url)
    expect(failed.code).toBe(1)
    expect(failed.stderr).toMatch(/^Copy failed; no row reached .*refuse_copy/)
    const afterFailure = await withClient({ connectionString: target.url }, readTableRows)
    for (const [table, rows] of Object.entries(afterFailure)) {
      if (!['tariffs', 'templates', 'schema_migrations'].includes(table)) expect(rows, table).toEqual([])
    }

    await withClient({ connectionString: target.url }, (client) =>
      client.query(`alter table stamp_events drop constraint refuse_copy`),
    )
    const retried = await copyTo(target.url)
    expect(retried.stderr).toBe('')
    expect(retried.code).toBe(0)
    const copied = await withClient({ connectionString: target.url }, readTableRows)
    expect(checksums(withoutMigrations(copied))).toEqual(checksums(withoutMigrations(source.rows)))
  }, 120_000)

  test.each([
    ['no URL', [], /^Usage: npm run db:copy-to -- postgres:\/\//],
    ['a URL of another database', ['mysql://root@127.0.0.1/app'], /^Not a PostgreSQL URL: mysql:/],
    [
      'a server that does not answer',
      ['postgres://postgres@127.0.0.1:1/nothing'],
      /^Cannot connect to 127\.0\.0\.1:1\/nothing: /,
    ],
  ])('%s: one line on stderr and exit code 1', async (_label, args, message) => {
    const result = await runTsToEnd(COMMAND, { env: { DATA_DIR: dataDir.dir }, args })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1)
    expect(result.stderr).toMatch(message)
  })
})
