import { QueryTypes, Transaction, type QueryOptions } from 'sequelize'
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

/** One SQL statement with its named replacements. */
export type Statement = { sql: string; replacements: Record<string, unknown> }

/**
 * A transaction that costs no round trip of its own: its BEGIN travels with its first statements and its COMMIT
 * with its last ones, each group sent as one query string (docs/decisions/049-stamp-round-trips.md). The simple
 * query protocol runs a string's statements in order, each with its own snapshot under READ COMMITTED (so a
 * statement after a `for update` sees what was committed while it waited for the lock), and stops at the first
 * error.
 */
export type BatchedTransaction = {
  /** Runs `statements` in one round trip (opening the transaction first, or committing it after, with `commit`). */
  run: <Row extends object = Record<string, unknown>>(
    statements: Statement[],
    options?: { commit?: boolean },
  ) => Promise<Row[][]>
  /** The transaction, opened, for model functions that take one (each of their statements is a round trip). */
  opened: () => Promise<Transaction>
}

type PooledConnection = { uuid?: string }
type TransactionInternals = {
  id: string
  connection: PooledConnection
  finished?: string
  cleanup: () => void
  forceCleanup: () => Promise<void>
}

/** Named replacements of several statements in one object: a name shared by two must mean the same value. */
function mergedReplacements(statements: Statement[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {}
  for (const { replacements } of statements) {
    for (const [name, value] of Object.entries(replacements)) {
      if (name in merged && merged[name] !== value) throw new Error(`Replacement :${name} differs between statements`)
      merged[name] = value
    }
  }
  return merged
}

/**
 * Runs `work` in one transaction whose statements go in batches (BatchedTransaction): committed with the last batch
 * that asks for it, else when `work` resolves; rolled back when it throws or a batch fails.
 */
export async function withBatchedTransaction<T>(work: (transaction: BatchedTransaction) => Promise<T>): Promise<T> {
  const sequelize = getSequelize()
  const transaction = new Transaction(sequelize, {})
  const internals = transaction as unknown as TransactionInternals
  const connection = (await sequelize.connectionManager.getConnection({
    uuid: internals.id,
  } as never)) as PooledConnection
  connection.uuid = internals.id
  internals.connection = connection
  let open = false
  let done = false
  // `completes` for the lone COMMIT and ROLLBACK: Sequelize refuses any query on a transaction marked finished
  // unless it says it completes it, and a ROLLBACK it refused would never reach the database.
  const send = async (sql: string, replacements: Record<string, unknown> = {}, completes = false) => {
    const [, result] = await sequelize.query(sql, {
      replacements,
      type: QueryTypes.RAW,
      transaction,
      ...(completes ? { completesTransaction: true } : {}),
    } as QueryOptions)
    return (Array.isArray(result) ? result : [result]) as { rows?: object[] }[]
  }
  const batched: BatchedTransaction = {
    run: async <Row extends object>(statements: Statement[], { commit = false } = {}) => {
      if (done) throw new Error('The transaction is finished')
      const sql = [
        ...(open ? [] : ['START TRANSACTION']),
        ...statements.map((statement) => statement.sql),
        ...(commit ? ['COMMIT'] : []),
      ].join(';\n')
      const begins = !open
      open = true
      const results = await send(sql, mergedReplacements(statements))
      if (commit) done = true
      return results
        .slice(begins ? 1 : 0)
        .slice(0, statements.length)
        .map((result) => (result.rows ?? []) as Row[])
    },
    opened: async () => {
      if (!open) await batched.run([])
      return transaction
    },
  }
  try {
    const result = await work(batched)
    if (open && !done) {
      done = true
      await send('COMMIT', {}, true)
    }
    internals.finished = 'commit'
    internals.cleanup()
    return result
  } catch (error) {
    internals.finished = 'rollback'
    try {
      // Also after a failed batch or COMMIT (a batch that failed left the transaction aborted; after a failed
      // COMMIT it is over, and this only warns): the connection goes back to the pool outside any transaction.
      if (open) await send('ROLLBACK', {}, true)
      internals.cleanup()
    } catch {
      // The ROLLBACK failed, so the connection's state is unknown: it does not go back to the pool. Destroying it
      // may fail too (a dead connection), and that must not hide the error the caller has to see.
      await internals.forceCleanup().catch(() => {})
    }
    throw error
  }
}
