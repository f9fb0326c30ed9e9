import { createRequire } from 'node:module'
import os from 'node:os'
import { threadId as mainThreadId, Worker } from 'node:worker_threads'
import webpush, { type RequestOptions } from 'web-push'
import { logger } from '#app/server/logger.server.ts'

/**
 * Web Push encryption on worker threads (docs/decisions/041-push-fan-out-speed.md). Each delivery's body is
 * encrypted for its device (RFC 8291: a fresh ECDH key pair, the shared secret, HKDF, AES-GCM), about 0.25 ms of CPU
 * each: on the main thread, beside the HTTPS requests and (embedded database) PGlite, it bounds a large message's
 * speed. The pool spreads it over the other cores. Requests go in batches (ENCRYPT_BATCH, or whatever one tick
 * gathered) so the message passing costs little; a batch holds only requests already in flight, so memory stays
 * bounded by the senders' concurrency. Should a thread fail to start (its file missing, a broken install), the work
 * is done on the main thread, as before the pool, and that is logged once.
 */

export type EncryptRequest = {
  endpoint: string
  p256dh: string
  auth: string
  payload: string
  /** web-push's options: TTL, urgency, topic, and the VAPID Authorization header already signed (one per service). */
  options: RequestOptions
}

export type EncryptedRequest = {
  headers: Record<string, string | number>
  body: Buffer
  /** The thread that encrypted it (the main thread's id when the pool fell back). */
  threadId: number
}

export type EncryptPool = {
  encrypt(request: EncryptRequest): Promise<EncryptedRequest>
  /** Worker threads running (0 once fallen back to the main thread). */
  readonly threads: number
  close(): Promise<void>
}

/** Requests per message to a thread: enough that posting costs little beside 25–50 encryptions, small for latency. */
export const ENCRYPT_BATCH = 32
/** One thread per core but the main thread's (at least one, at most four: the HTTPS side is the main thread's). */
export const ENCRYPT_THREADS = Math.min(4, Math.max(1, os.availableParallelism() - 1))

type Pending = { request: EncryptRequest; resolve: (value: EncryptedRequest) => void; reject: (e: Error) => void }
/** What a thread answers: `results` is the JSON of one entry per request (push-encrypt-worker.mjs). */
type Answer = { id: number; threadId: number; results: string }
type Result = { headers: Record<string, string | number>; body: string } | { error: string }
type Thread = { worker: Worker; outstanding: Map<number, Pending[]>; load: number; dead: boolean }

/**
 * Where the thread's code is, from the sources (vitest, tsx) and from the server build alike: the package's `#app/*`
 * import map names the same file wherever this module was bundled to (build/server/index.js or app/…).
 */
export function encryptWorkerPath() {
  return createRequire(import.meta.url).resolve('#app/services/push/push-encrypt-worker.mjs')
}

/** Encrypts on this thread: the pool's fallback, and what a request the pool could not place gets. */
function encryptHere({ endpoint, p256dh, auth, payload, options }: EncryptRequest): EncryptedRequest {
  const details = webpush.generateRequestDetails({ endpoint, keys: { p256dh, auth } }, payload, options)
  return { headers: details.headers as Record<string, string | number>, body: details.body, threadId: mainThreadId }
}

export function createEncryptPool({
  threads: size = ENCRYPT_THREADS,
  batchSize = ENCRYPT_BATCH,
  workerPath,
}: { threads?: number; batchSize?: number; workerPath?: string } = {}): EncryptPool {
  const threads: Thread[] = []
  let queued: Pending[] = []
  let flushScheduled = false
  let nextId = 1
  let warned = false
  let closed = false

  function runHere(list: Pending[]) {
    for (const entry of list) {
      try {
        entry.resolve(encryptHere(entry.request))
      } catch (error) {
        entry.reject(error instanceof Error ? error : new Error(String(error)))
      }
    }
  }

  /** A thread that failed: its batches are done here, and it takes no more. */
  function lose(thread: Thread, error: unknown) {
    if (thread.dead) return
    thread.dead = true
    const left = [...thread.outstanding.values()].flat()
    thread.outstanding.clear()
    void thread.worker.terminate().catch(() => {})
    if (!warned && !closed) {
      warned = true
      logger.warn({ err: error }, 'push encryption thread failed: encrypting on the main thread')
    }
    runHere(left)
  }

  try {
    const file = workerPath ?? encryptWorkerPath()
    for (let index = 0; index < size; index++) {
      const thread: Thread = { worker: new Worker(file), outstanding: new Map(), load: 0, dead: false }
      // Idle threads must not keep a command or a test process alive.
      thread.worker.unref()
      thread.worker.on('message', ({ id, threadId, results }: Answer) => {
        const batch = thread.outstanding.get(id)
        if (!batch) return
        thread.outstanding.delete(id)
        thread.load -= batch.length
        if (thread.load === 0) thread.worker.unref()
        const parsed = JSON.parse(results) as Result[]
        batch.forEach((entry, index) => {
          const result = parsed[index]!
          if ('error' in result) entry.reject(new Error(result.error))
          else entry.resolve({ headers: result.headers, body: Buffer.from(result.body, 'base64'), threadId })
        })
      })
      thread.worker.on('error', (error) => lose(thread, error))
      thread.worker.on('exit', (code) => lose(thread, new Error(`encryption thread exited with ${code}`)))
      threads.push(thread)
    }
  } catch (error) {
    warned = true
    logger.warn({ err: error }, 'push encryption threads could not start: encrypting on the main thread')
  }

  function flush() {
    flushScheduled = false
    while (queued.length > 0) {
      const batch = queued.slice(0, batchSize)
      queued = queued.slice(batchSize)
      const live = threads.filter((thread) => !thread.dead)
      if (live.length === 0) {
        runHere(batch)
        continue
      }
      // The least busy thread: batches from several chunks spread over all of them.
      const thread = live.reduce((best, candidate) => (candidate.load < best.load ? candidate : best))
      const id = nextId++
      // Held while it has work: a process waiting only for its answer must not exit.
      if (thread.load === 0) thread.worker.ref()
      thread.outstanding.set(id, batch)
      thread.load += batch.length
      thread.worker.postMessage({ id, requests: JSON.stringify(batch.map(({ request }) => request)) })
    }
  }

  return {
    encrypt(request) {
      if (closed || threads.every((thread) => thread.dead)) return Promise.resolve().then(() => encryptHere(request))
      return new Promise<EncryptedRequest>((resolve, reject) => {
        queued.push({ request, resolve, reject })
        // A full batch goes at once; a smaller one after this tick, with whatever else the tick asked for.
        if (queued.length >= batchSize) flush()
        else if (!flushScheduled) {
          flushScheduled = true
          setImmediate(flush)
        }
      })
    },
    get threads() {
      return threads.filter((thread) => !thread.dead).length
    },
    async close() {
      closed = true
      flush()
      await Promise.all(
        threads.map(async (thread) => {
          const left = [...thread.outstanding.values()].flat()
          thread.outstanding.clear()
          thread.dead = true
          await thread.worker.terminate()
          runHere(left)
        }),
      )
    },
  }
}

// One pool per process, kept on globalThis: a second copy of this module (vitest beside the build) shares it.
const POOL = Symbol.for('stampwise.push-encrypt-pool')
type Global = { [POOL]?: EncryptPool }

/** The process's pool, started on first use. */
function processPool() {
  const global = globalThis as Global
  return (global[POOL] ??= createEncryptPool())
}

/** Starts the pool's threads now (a message about to go): their start overlaps the making of its deliveries. */
export function warmEncryptPool() {
  processPool()
}

/** Encrypts one delivery's request on the process's pool. */
export function encryptPushRequest(request: EncryptRequest): Promise<EncryptedRequest> {
  return processPool().encrypt(request)
}
