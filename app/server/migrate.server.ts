import { type QueryTypes, type Sequelize } from 'sequelize'
import { Umzug, type UmzugStorage } from 'umzug'
import { migrations } from '#migrations/index.ts'
import { type MigrationContext } from '#migrations/sql-migration.ts'

// Any fixed number: serialises migrations when several processes start against one PostgreSQL server.
const MIGRATION_LOCK_KEY = 724_061_001

/** Records applied migrations inside the same transaction as the migrations themselves. */
class TransactionalStorage implements UmzugStorage<MigrationContext> {
  async logMigration({ name, context }: { name: string; context: MigrationContext }) {
    await context.sequelize.query('insert into schema_migrations (name) values (:name)', {
      replacements: { name },
      transaction: context.transaction,
    })
  }
  async unlogMigration({ name, context }: { name: string; context: MigrationContext }) {
    await context.sequelize.query('delete from schema_migrations where name = :name', {
      replacements: { name },
      transaction: context.transaction,
    })
  }
  async executed({ context }: { context: MigrationContext }) {
    const rows = await context.sequelize.query<{ name: string }>('select name from schema_migrations order by name', {
      type: 'SELECT' as QueryTypes.SELECT,
      transaction: context.transaction,
    })
    return rows.map((row) => row.name)
  }
}

type Logger = { info: (message: string) => void }

async function withMigrator<T>(
  sequelize: Sequelize,
  logger: Logger | undefined,
  run: (umzug: Umzug<MigrationContext>) => Promise<T>,
): Promise<T> {
  // One transaction for the whole run: PostgreSQL DDL is transactional, so a failing migration leaves
  // the schema exactly as it was, and the lock makes a second process wait instead of racing.
  return sequelize.transaction(async (transaction) => {
    await sequelize.query('select pg_advisory_xact_lock(:key)', {
      replacements: { key: MIGRATION_LOCK_KEY },
      transaction,
    })
    await sequelize.query(
      'create table if not exists schema_migrations (name text primary key, run_at timestamptz not null default now())',
      { transaction },
    )
    const umzug = new Umzug<MigrationContext>({
      migrations: migrations.map(({ name, up, down }) => ({ name, up, down })),
      context: { sequelize, transaction },
      storage: new TransactionalStorage(),
      logger: logger
        ? {
            info: (event) => logger.info(`migration ${JSON.stringify(event)}`),
            warn: () => {},
            error: () => {},
            debug: () => {},
          }
        : undefined,
    })
    return run(umzug)
  })
}

/** Applies every pending migration; returns the names applied. */
export async function migrateUp(sequelize: Sequelize, logger?: Logger): Promise<string[]> {
  return withMigrator(sequelize, logger, async (umzug) => (await umzug.up()).map((m) => m.name))
}

/** Reverts the last `count` migrations (development and tests). */
export async function migrateDown(sequelize: Sequelize, count = 1, logger?: Logger): Promise<string[]> {
  return withMigrator(sequelize, logger, async (umzug) => (await umzug.down({ step: count })).map((m) => m.name))
}
