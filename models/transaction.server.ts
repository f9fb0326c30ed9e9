import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * Runs `work` in one database transaction (committed when it resolves, rolled back when it throws), so services
 * can group model calls without touching the Sequelize instance. Pass `transaction` on to every model call inside.
 */
export function withTransaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
  return getSequelize().transaction((transaction) => work(transaction))
}

/** The rows a SELECT (or a statement with RETURNING) answers, with named replacements, in `transaction` if given. */
export const selectRows = <Row extends object>(
  sql: string,
  replacements: Record<string, unknown>,
  transaction?: Transaction,
) => getSequelize().query<Row>(sql, { replacements, type: QueryTypes.SELECT, transaction })
