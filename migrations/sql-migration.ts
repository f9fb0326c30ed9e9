import { type Sequelize, type Transaction } from 'sequelize'

/** What every migration's up() and down() receive: run each query with `{ transaction }`. */
export type MigrationContext = { sequelize: Sequelize; transaction: Transaction }
export type Migration = (params: { context: MigrationContext }) => Promise<void>

/** A migration written as two SQL scripts, each run in the migration transaction. */
export function sqlMigration(upSql: string, downSql: string): { up: Migration; down: Migration } {
  return {
    up: async ({ context: { sequelize, transaction } }) => {
      await sequelize.query(upSql, { transaction })
    },
    down: async ({ context: { sequelize, transaction } }) => {
      await sequelize.query(downSql, { transaction })
    },
  }
}
