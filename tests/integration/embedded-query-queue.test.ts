import net from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, expect, test } from 'vitest'
import {
  EMBEDDED_SOCKET_PORT,
  embeddedSocketPath,
  startEmbeddedDatabase,
  type EmbeddedDatabase,
} from '#app/server/embedded-db.server.ts'
import { createBlankDataDir } from '#tests/support/scratch-databases.ts'

/*
 * The embedded database serves several connections through one backend (app/server/embedded-query-queue.server.ts):
 * parameterised queries from connections that interleave with each other's transactions must each run their own
 * statement. Before the fix this failed within a few hundred queries with "bind message supplies 2 parameters, but
 * prepared statement "" requires 1".
 */

let database: EmbeddedDatabase
let dataDir: string
let removeDataDir = () => {}
const clients: pg.Client[] = []

beforeAll(async () => {
  ;({ dir: dataDir, remove: removeDataDir } = await createBlankDataDir('query-queue'))
  database = await startEmbeddedDatabase(dataDir)
})

afterAll(async () => {
  await Promise.all(clients.map((client) => client.end().catch(() => {})))
  await database?.close()
  removeDataDir()
})

async function connect() {
  const client = new pg.Client({ host: dataDir, port: EMBEDDED_SOCKET_PORT, user: 'postgres', database: 'postgres' })
  await client.connect()
  clients.push(client)
  return client
}

test('parameterised queries from four connections, one of them in transactions, each get their own answer', async () => {
  const connections = await Promise.all([0, 1, 2, 3].map(connect))
  const wrong: string[] = []
  await Promise.all(
    connections.map(async (client, index) => {
      // A different number of parameters per connection: a Bind that met another's statement cannot pass unseen.
      const values = Array.from({ length: index + 1 }, (_, k) => index * 10 + k)
      const text = `select ${values.map((_, k) => `$${k + 1}::int`).join(' + ')} as total`
      const expected = values.reduce((sum, value) => sum + value, 0)
      for (let round = 0; round < 200; round++) {
        try {
          if (index === 0) await client.query('begin')
          const { rows } = await client.query<{ total: number }>(text, values)
          if (index === 0) await client.query('commit')
          if (rows[0]?.total !== expected) wrong.push(`connection ${index}: ${rows[0]?.total} instead of ${expected}`)
        } catch (error) {
          wrong.push(`connection ${index}: ${String(error)}`)
        }
      }
    }),
  )
  expect(wrong.slice(0, 5)).toEqual([])
})

/** A bare protocol connection (node-postgres would reject the answers to messages it did not send itself). */
async function rawConnection() {
  const socket = net.connect(embeddedSocketPath(dataDir))
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0')
  const startup = Buffer.alloc(8)
  startup.writeInt32BE(8 + params.length, 0)
  startup.writeInt32BE(196608, 4) // protocol 3.0
  socket.write(Buffer.concat([startup, params]))
  // Ready for query: 'Z', length 5, status.
  await new Promise<void>((resolve) => {
    let received = Buffer.alloc(0)
    socket.on('data', (data: Buffer) => {
      received = Buffer.concat([received, data])
      if (received.includes(Buffer.from([0x5a, 0, 0, 0, 5]))) resolve()
    })
  })
  return socket
}

test('a connection that leaves in the middle of a batch does not hold up the others', async () => {
  const staying = await connect()
  const leaving = await rawConnection()
  // A Parse with no Sync after it, then the connection is gone: the queue must not wait for its Sync forever.
  const body = Buffer.from('\0select 1\0\0\0')
  const parse = Buffer.alloc(5)
  parse.write('P', 0)
  parse.writeInt32BE(4 + body.length, 1)
  leaving.write(Buffer.concat([parse, body]))
  await new Promise((resolve) => setTimeout(resolve, 100))
  leaving.destroy()
  const { rows } = await staying.query<{ answer: number }>('select $1::int as answer', [42])
  expect(rows[0]?.answer).toBe(42)
})
