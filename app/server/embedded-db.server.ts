import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { NodeFS } from '@electric-sql/pglite/nodefs'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import { startControlServer } from './embedded-control.server.ts'
import { serveBatchesWhole } from './embedded-query-queue.server.ts'
import { unpackTar } from './unpack-tar.server.ts'

/**
 * The embedded PostgreSQL (PGlite) behind one Unix socket inside DATA_DIR.
 *
 * PGlite is a single-connection database that takes no lock on its files, so exactly one process
 * may open a data folder: a lock file guards it, and every client — the app's own pools, and commands
 * run while the server is up — connects through the socket server of the process that holds it
 * (docs/product/configuration.md, "One process, one database").
 */

/** node-postgres finds a Unix socket as `${host}/.s.PGSQL.${port}`: keep that name so `host` is the folder. */
export const EMBEDDED_SOCKET_PORT = 5432
const LOCK_FILE = 'stampwise.lock'

type NodefsStream = { nfd?: number }
type Nodefs = { stream_ops: { fsync?: (stream: NodefsStream) => number }; tryFSOperation: <T>(run: () => T) => T }

/**
 * PGlite starts PostgreSQL with fsync off (`-F`), and emscripten's Node filesystem has no fsync: a commit reaches
 * the kernel, so it survives the process being killed, but not the disk, so an OS crash or power cut could lose
 * it or corrupt the database. This filesystem gives NODEFS a real fsync (fdatasync is a no-op in emscripten,
 * hence wal_sync_method=fsync). Measured cost and the SIGKILL test: docs/decisions/003-durability.md.
 */
class DurableNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS['init']>) {
    const result = await super.init(...args)
    const options = result.emscriptenOpts
    options.preRun = [
      ...(options.preRun ?? []),
      (mod) => {
        const nodefs = mod.FS.filesystems.NODEFS as unknown as Nodefs
        nodefs.stream_ops.fsync = (stream) => {
          const fd = stream.nfd
          if (fd !== undefined) nodefs.tryFSOperation(() => fs.fsyncSync(fd))
          return 0
        }
      },
    ]
    return result
  }
}

/**
 * PostgreSQL's memory settings for one process that also serves the app (docs/decisions/060-memory.md). PGlite's
 * defaults are a server's (shared_buffers 128MB, all of it held in the WebAssembly heap for good): with 16MB the
 * pages the app reads often stay cached, and the rest come from the kernel's page cache through a read() each.
 */
const MEMORY_PARAMS = ['shared_buffers=16MB', 'temp_buffers=2MB', 'work_mem=2MB', 'maintenance_work_mem=16MB'].flatMap(
  (setting) => ['-c', setting],
)
const START_PARAMS = [...PGlite.defaultStartParams, ...MEMORY_PARAMS]
const DURABLE_START_PARAMS = [...START_PARAMS, '-c', 'fsync=on', '-c', 'wal_sync_method=fsync']

/**
 * Written by `npm run build` (scripts/build-embedded-template.ts): an empty, migrated database to start from. The
 * address holds both here (app/server/) and in the server build (build/server/index.js): two folders below the root.
 */
export const EMBEDDED_TEMPLATE_PATH = fileURLToPath(new URL('../../build/embedded-template.tar', import.meta.url))

/**
 * The template when DATA_DIR holds no database yet (loading it is much faster than initdb). A Blob backed by the
 * file, not a copy of it: PGlite reads it once, and two more 41 MiB copies would stay in the process's memory
 * long after the start (docs/decisions/060-memory.md).
 */
export async function freshDatabaseTemplate(dataDir: string): Promise<Blob | undefined> {
  if (fs.existsSync(path.join(embeddedPgDataDir(dataDir), 'PG_VERSION'))) return undefined
  if (!fs.existsSync(EMBEDDED_TEMPLATE_PATH)) return undefined
  return fs.openAsBlob(EMBEDDED_TEMPLATE_PATH)
}

export function embeddedSocketPath(dataDir: string) {
  return path.join(path.resolve(dataDir), `.s.PGSQL.${EMBEDDED_SOCKET_PORT}`)
}

export function embeddedPgDataDir(dataDir: string) {
  return path.join(path.resolve(dataDir), 'pgdata')
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`The data folder ${dataDir} is already open in process ${pid}; stop that process or use another DATA_DIR`)
  }
}

function isProcessAlive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * When a process started, in clock ticks since boot (Linux; undefined elsewhere). A pid is reused after its
 * process dies, in a restarted container often at once: the lock records both, so it names one process only.
 */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

/** The pid holding the data folder, or undefined when no live process holds it. */
export function readLockHolder(dataDir: string): number | undefined {
  const lockPath = path.join(path.resolve(dataDir), LOCK_FILE)
  let content: string
  try {
    content = fs.readFileSync(lockPath, 'utf8')
  } catch {
    return undefined
  }
  const [pidLine = '', startedLine] = content.split('\n')
  const pid = Number.parseInt(pidLine, 10)
  if (!Number.isInteger(pid) || pid <= 0 || !isProcessAlive(pid)) return undefined
  const started = startedLine?.trim()
  const liveStarted = started ? processStartTime(pid) : undefined
  return liveStarted !== undefined && liveStarted !== started ? undefined : pid
}

/** Takes the lock file, replacing a stale one left by a process that died; returns its release function. */
export function acquireDataDirLock(dataDir: string): () => void {
  const dir = path.resolve(dataDir)
  fs.mkdirSync(dir, { recursive: true })
  const lockPath = path.join(dir, LOCK_FILE)
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx')
      fs.writeSync(fd, `${process.pid}\n${processStartTime(process.pid) ?? ''}\n`)
      fs.closeSync(fd)
      return () => {
        try {
          if (fs.readFileSync(lockPath, 'utf8').split('\n')[0] === String(process.pid)) fs.unlinkSync(lockPath)
        } catch {
          // Already gone: nothing to release.
        }
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = readLockHolder(dir)
      if (holder !== undefined && holder !== process.pid) throw new DataDirInUseError(dir, holder)
      fs.rmSync(lockPath, { force: true })
    }
  }
  throw new Error(`Could not take the lock file ${lockPath}`)
}

/** True when a server process answers on the data folder's socket. */
export function isEmbeddedServerRunning(dataDir: string): Promise<boolean> {
  if (readLockHolder(dataDir) === undefined) return Promise.resolve(false)
  return new Promise((resolve) => {
    const socket = net.connect(embeddedSocketPath(dataDir))
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/**
 * For a command: true once the server holding the data folder answers on its socket; false when no live process
 * holds the folder (the command may open it itself). A server that is still opening the database holds the lock
 * before its socket listens, so a command started at that moment waits for it instead of failing.
 */
export async function waitForEmbeddedServer(dataDir: string, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await isEmbeddedServerRunning(dataDir)) return true
    if (readLockHolder(dataDir) === undefined || Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/**
 * Where the database's files live: on disk in the data folder, durable (see DurableNodeFS), or in this process's
 * memory — for test databases only, which no process outlives and nothing reads but through the socket: their start
 * and their commits skip the disk (measured: 1.5 s → 1.0 s to open the template).
 */
export type EmbeddedStorage = 'disk' | 'memory'

/** PGlite on the data folder's files (or in memory). The caller must hold the folder's lock. */
export async function openEmbeddedPGlite(dataDir: string, loadDataDir?: Blob, storage: EmbeddedStorage = 'disk') {
  if (storage === 'memory') return PGlite.create({ loadDataDir, startParams: START_PARAMS })
  // The template is unpacked onto the disk here rather than by PGlite (unpack-tar.server.ts says why).
  if (loadDataDir) unpackTar(new Uint8Array(await loadDataDir.arrayBuffer()), embeddedPgDataDir(dataDir))
  return PGlite.create({ fs: new DurableNodeFS(embeddedPgDataDir(dataDir)), startParams: DURABLE_START_PARAMS })
}

export type EmbeddedDatabase = {
  db: PGlite
  socketDir: string
  close: () => Promise<void>
}

/**
 * Opens the data folder (creating the database on first use) and serves it on its socket.
 * `maxConnections` must be above the sum of every pool that connects, or connections wait in line.
 */
export async function startEmbeddedDatabase(
  dataDir: string,
  {
    maxConnections = 64,
    loadDataDir,
    storage = 'disk',
  }: { maxConnections?: number; loadDataDir?: Blob; storage?: EmbeddedStorage } = {},
): Promise<EmbeddedDatabase> {
  const release = acquireDataDirLock(dataDir)
  let db: PGlite | undefined
  let server: PGLiteSocketServer | undefined
  let control: Awaited<ReturnType<typeof startControlServer>> | undefined
  try {
    db = await openEmbeddedPGlite(dataDir, loadDataDir, storage)
    const socketPath = embeddedSocketPath(dataDir)
    fs.rmSync(socketPath, { force: true }) // left by a process that died; we hold the lock now
    server = new PGLiteSocketServer({ db, path: socketPath, maxConnections })
    serveBatchesWhole(server)
    await server.start()
    // Backups of the running database are asked for here (npm run db:backup): only this process can dump it.
    control = await startControlServer(dataDir, db)
  } catch (error) {
    await control?.close().catch(() => {})
    await server?.stop().catch(() => {})
    await db?.close().catch(() => {})
    release()
    throw error
  }
  const openDb = db
  const openServer = server
  const openControl = control
  let closing: Promise<void> | undefined
  return {
    db: openDb,
    socketDir: path.resolve(dataDir),
    close: () =>
      (closing ??= (async () => {
        await openControl.close().catch(() => {})
        await openServer.stop().catch(() => {})
        await openDb.close()
        release()
      })()),
  }
}
