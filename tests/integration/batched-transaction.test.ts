import { afterAll, beforeAll, expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { withBatchedTransaction } from '#models/transaction.server.ts'
import { sql } from '#tests/support/auth-api.ts'

/**
 * withBatchedTransaction (models/transaction.server.ts) on the real database (embedded, or the server with
 * TEST_DATABASE_URL): a batch that fails part-way commits nothing, its own error is the one thrown, and the
 * connection is rolled back and goes back to the pool (a ROLLBACK Sequelize refused used to end every failure in
 * destroying the connection). The pool's connects and disconnects are counted through Sequelize's hooks.
 */
let connects = 0
let disconnects = 0

beforeAll(async () => {
  const sequelize = getSequelize()
  sequelize.addHook('afterConnect', 'batched-transaction-test', () => void connects++)
  sequelize.addHook('afterDisconnect', 'batched-transaction-test', () => void disconnects++)
  await sql(`create table batched_probe (label text not null)`)
})

afterAll(async () => {
  const sequelize = getSequelize()
  sequelize.removeHook('afterConnect', 'batched-transaction-test')
  sequelize.removeHook('afterDisconnect', 'batched-transaction-test')
})

const labels = async () =>
  (await sql<{ label: string }>(`select label from batched_probe order by label`)).map((row) => row.label)

/** Connects and disconnects of the pool while `work` runs. */
async function poolTraffic(work: () => Promise<unknown>) {
  const [connectsBefore, disconnectsBefore] = [connects, disconnects]
  await work()
  return { connects: connects - connectsBefore, disconnects: disconnects - disconnectsBefore }
}

test('a batch that fails after an insert commits nothing, throws its own error, and keeps the connection', async () => {
  // A warm pool: the next statements can be served without a new connection.
  await sql(`select 1`)
  let thrown: unknown
  const traffic = await poolTraffic(async () => {
    thrown = await withBatchedTransaction((transaction) =>
      transaction.run([
        { sql: `insert into batched_probe (label) values (:label)`, replacements: { label: 'failed batch' } },
        { sql: `select 1/0`, replacements: {} },
      ]),
    ).catch((error: unknown) => error)
    // The connection it used answers the next query: it went back to the pool, rolled back.
    expect(await labels()).toEqual([])
  })
  expect(String(thrown)).toMatch(/division by zero/)
  expect(traffic).toEqual({ connects: 0, disconnects: 0 })
})

test('an error thrown by the work after a batch rolls back and keeps the connection', async () => {
  await sql(`select 1`)
  const failure = new Error('the work failed')
  let thrown: unknown
  const traffic = await poolTraffic(async () => {
    thrown = await withBatchedTransaction(async (transaction) => {
      await transaction.run([
        { sql: `insert into batched_probe (label) values (:label)`, replacements: { label: 'thrown after' } },
      ])
      throw failure
    }).catch((error: unknown) => error)
    expect(await labels()).toEqual([])
  })
  expect(thrown).toBe(failure)
  expect(traffic).toEqual({ connects: 0, disconnects: 0 })
})

test('a transaction that succeeds commits, with its last batch or when the work resolves', async () => {
  await sql(`select 1`)
  const traffic = await poolTraffic(async () => {
    await withBatchedTransaction((transaction) =>
      transaction.run(
        [{ sql: `insert into batched_probe (label) values (:label)`, replacements: { label: 'committed with batch' } }],
        { commit: true },
      ),
    )
    await withBatchedTransaction(async (transaction) => {
      await transaction.run([
        { sql: `insert into batched_probe (label) values (:label)`, replacements: { label: 'committed after' } },
      ])
    })
    expect(await labels()).toEqual(['committed after', 'committed with batch'])
  })
  expect(traffic).toEqual({ connects: 0, disconnects: 0 })
  await sql(`delete from batched_probe`)
})
