import fs from 'node:fs'
import path from 'node:path'
import { Sequelize } from 'sequelize'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { databaseConnectionOptions } from '#app/server/db.server.ts'
import { startEmbeddedDatabase, type EmbeddedDatabase } from '#app/server/embedded-db.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { migrateDown, migrateUp } from '#app/server/migrate.server.ts'
import { migrations } from '#migrations/index.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { diffSnapshots, snapshotSchema, type SchemaSnapshot } from '#tests/support/schema-snapshot.ts'
import { createBlankDataDir, createServerDatabase } from '#tests/support/scratch-databases.ts'

/*
 * The same migrations build the same schema on the embedded database (PGlite, PostgreSQL 18) and on the
 * PostgreSQL server (15), whichever TEST_DATABASE_URL this run uses: each side is a fresh database of its own.
 */

type Side = {
  name: string
  config: { host: string; port?: number; user: string; database: string } | { connectionString: string }
  sequelize: Sequelize
}

let embedded: EmbeddedDatabase
let removeDataDir: () => void
let dropServerDatabase: () => Promise<void>
let sides: { embedded: Side; server: Side }
const migrated: Record<string, SchemaSnapshot> = {}

beforeAll(async () => {
  if (usingServer()) return // see below: the embedded run compares both sides
  const dataDir = await createBlankDataDir('parity')
  removeDataDir = dataDir.remove
  embedded = await startEmbeddedDatabase(dataDir.dir, { maxConnections: 4 })
  const server = await createServerDatabase('parity')
  dropServerDatabase = server.drop
  sides = {
    embedded: {
      name: 'embedded',
      config: { host: embedded.socketDir, user: 'postgres', database: 'postgres' },
      sequelize: new Sequelize(databaseConnectionOptions(parseEnv({ DATA_DIR: dataDir.dir }))),
    },
    server: {
      name: 'server',
      config: { connectionString: server.url },
      sequelize: new Sequelize(databaseConnectionOptions(parseEnv({ DATABASE_URL: server.url }))),
    },
  }
  for (const side of Object.values(sides)) {
    await migrateUp(side.sequelize)
    migrated[side.name] = await snapshotSchema(side.config)
  }
}, 120_000)

afterAll(async () => {
  for (const side of Object.values(sides ?? {})) await side.sequelize.close()
  await embedded?.close()
  removeDataDir?.()
  await dropServerDatabase?.()
})

// Its databases are its own (a data folder, a fresh server database), whatever TEST_DATABASE_URL says: the
// PostgreSQL-server run would repeat the same work and prove nothing more, so it runs in the embedded run only.
describe.skipIf(usingServer())('schema parity', () => {
  test('the embedded database and the PostgreSQL server have the same schema and seeded rows', () => {
    const diff = diffSnapshots(migrated.embedded!, migrated.server!, ['embedded', 'server'])
    expect(diff, `the schemas differ:\n${diff.join('\n')}`).toEqual([])
    // Guards against comparing two empty lists.
    expect(migrated.server!.relations).toContain('r users')
    expect(migrated.server!.tariffs).toHaveLength(3)
    expect(migrated.server!.sharedTemplates!.length).toBeGreaterThan(0)
  })

  test.each(['embedded', 'server'] as const)(
    'on the %s database, migrating down all the way leaves no trace, and up again rebuilds the same schema',
    async (name) => {
      const side = sides[name]
      const reverted = await migrateDown(side.sequelize, migrations.length)
      expect(reverted).toEqual(migrations.map((migration) => migration.name).reverse())
      const empty = await snapshotSchema(side.config, ['relations', 'sequences', 'triggers', 'functions'])
      expect(empty).toEqual({ relations: ['r schema_migrations'], sequences: [], triggers: [], functions: [] })

      expect(await migrateUp(side.sequelize)).toEqual(migrations.map((migration) => migration.name))
      const diff = diffSnapshots(migrated[name]!, await snapshotSchema(side.config), ['before', 'after'])
      expect(diff, `down then up changed the schema:\n${diff.join('\n')}`).toEqual([])
    },
    60_000,
  )
})

describe.skipIf(usingServer())('migrations/index.ts', () => {
  test('lists every migrations/NNNN-*.ts file, in order, with that file’s up and down', async () => {
    const folder = path.resolve('migrations')
    const files = fs
      .readdirSync(folder)
      .filter((file) => /^\d{4}-.+\.ts$/.test(file))
      .sort()
    expect(migrations.map((migration) => `${migration.name}.ts`)).toEqual(files)
    for (const [index, file] of files.entries()) {
      const module = (await import(path.join(folder, file))) as { up: unknown; down: unknown }
      expect(migrations[index]!.up, `${file}: up`).toBe(module.up)
      expect(migrations[index]!.down, `${file}: down`).toBe(module.down)
    }
  })
})
