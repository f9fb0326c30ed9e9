import type { PGlite } from '@electric-sql/pglite'
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket'

/**
 * PGlite has one backend, and its socket server feeds it the protocol messages of every connection from one queue.
 * The library keeps a connection's messages together only inside a transaction. But an extended-protocol query
 * (Parse, Bind, Describe, Execute, then Sync: every query with parameters, i.e. most of Sequelize's and pg-boss's)
 * is several messages, and the unnamed statement it parses is the backend's, not the connection's. When another
 * connection's messages ran between them — typically its BEGIN, after which the library serves only that
 * connection — the Bind met someone else's statement ("bind message supplies 1 parameters, but prepared statement
 * "" requires 2") or, worse, a statement with the same number of parameters and a different meaning.
 *
 * This replaces the queue's scheduling: a connection that has started an extended-protocol batch is served alone
 * until its Sync, as one in a transaction is served alone until the transaction ends. It also keeps the queue
 * running after a message fails (the library stopped processing for good) and lets the queue move on when the
 * connection it waits for goes away. The test: tests/integration/embedded-query-queue.test.ts.
 */

type QueuedMessage = {
  handlerId: number
  message: Uint8Array
  resolve: (bytes: number) => void
  reject: (error: unknown) => void
  onData: (data: Uint8Array) => void
}

type QueryQueue = {
  queue: QueuedMessage[]
  processing: boolean
  lastHandlerId: number | null
  db: PGlite
  processQueue: () => Promise<void>
  clearQueueForHandler: (handlerId: number) => void
}

// Frontend message types that belong to an extended-protocol batch, which ends at Sync ('S').
const EXTENDED = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((letter) => letter.charCodeAt(0)))
const SYNC = 'S'.charCodeAt(0)
const SYNC_MESSAGE = new Uint8Array([SYNC, 0, 0, 0, 4])

export function serveBatchesWhole(server: PGLiteSocketServer) {
  const queue = (server as unknown as { queryQueue: QueryQueue }).queryQueue
  if (!queue || !Array.isArray(queue.queue))
    throw new Error('pglite-socket changed: its query queue is not where it was')
  // The connection whose batch or transaction is open: only its messages may run until it closes.
  let batchOf: number | null = null

  const next = (): QueuedMessage | undefined => {
    const owner = batchOf ?? (queue.db.isInTransaction() ? queue.lastHandlerId : null)
    if (owner === null) return queue.queue.shift()
    const index = queue.queue.findIndex((entry) => entry.handlerId === owner)
    return index === -1 ? undefined : queue.queue.splice(index, 1)[0]
  }

  queue.processQueue = async () => {
    if (queue.processing) return
    queue.processing = true
    try {
      for (let entry = next(); entry; entry = next()) {
        const type = entry.message[0]!
        if (EXTENDED.has(type)) batchOf = entry.handlerId
        else if (type === SYNC && batchOf === entry.handlerId) batchOf = null
        let bytes = 0
        try {
          await queue.db.runExclusive(() =>
            queue.db.execProtocolRawStream(entry!.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length
                entry!.onData(data)
              },
            }),
          )
        } catch (error) {
          entry.reject(error)
          continue
        }
        queue.lastHandlerId = entry.handlerId
        entry.resolve(bytes)
      }
    } finally {
      queue.processing = false
    }
  }

  const clearQueueForHandler = queue.clearQueueForHandler.bind(queue)
  queue.clearQueueForHandler = (handlerId) => {
    clearQueueForHandler(handlerId)
    // A connection that left mid-batch will never send its Sync: the others must not wait for it.
    // Its Sync closes what it left open on the backend, which otherwise skips every message after an error up to
    // the next Sync.
    if (batchOf === handlerId) {
      batchOf = null
      void queue.db
        .runExclusive(() => queue.db.execProtocolRaw(SYNC_MESSAGE))
        .catch(() => {})
        .then(() => queue.processQueue())
    }
  }
}
