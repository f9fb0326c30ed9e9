import fs from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import zlib from 'node:zlib'
import {
  dumpDataFolder,
  isControlSocketAnswering,
  requestBackup,
  type DataFolderDump,
} from './embedded-control.server.ts'
import {
  acquireDataDirLock,
  embeddedPgDataDir,
  openEmbeddedPGlite,
  readLockHolder,
  waitForEmbeddedServer,
} from './embedded-db.server.ts'
import type { PGlite } from '@electric-sql/pglite'

/**
 * Backups of the embedded database (npm run db:backup / db:restore): PGlite's own dump of its data folder, a
 * gzipped tar. A running server makes the dump itself (embedded-control.server.ts); with no server, the command
 * opens the folder under its lock. Decision 023.
 */

/** Where a backup goes when no file is named: DATA_DIR/backups, the one folder the app's user can surely write. */
export function defaultBackupFile(dataDir: string, now = new Date()) {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  return path.join(path.resolve(dataDir), 'backups', `stampwise-${stamp}.tar.gz`)
}

function hasDatabase(dataDir: string) {
  return fs.existsSync(path.join(embeddedPgDataDir(dataDir), 'PG_VERSION'))
}

function fsyncPath(file: string) {
  const fd = fs.openSync(file, 'r')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** Writes the dump to `file`: through a temporary name, checked (it unzips to the announced size), synced, renamed. */
async function writeDump(dump: DataFolderDump, file: string) {
  const partial = `${file}.partial-${process.pid}`
  try {
    await pipeline(dump.gzip, fs.createWriteStream(partial, { flags: 'wx', mode: 0o600 }))
    let unzipped = 0
    const count = new Writable({
      write(chunk: Buffer, _encoding, done) {
        unzipped += chunk.length
        done()
      },
    })
    await pipeline(fs.createReadStream(partial), zlib.createGunzip(), count).catch((error: Error) => {
      throw new Error(`the backup arrived damaged (${error.message})`)
    })
    if (unzipped !== dump.tarBytes) throw new Error(`the backup arrived short: ${unzipped} of ${dump.tarBytes} bytes`)
    fsyncPath(partial)
    fs.renameSync(partial, file)
    fsyncPath(path.dirname(file))
    return fs.statSync(file).size
  } catch (error) {
    fs.rmSync(partial, { force: true })
    throw error
  }
}

export type BackupResult = { file: string; bytes: number; tarBytes: number; through: 'server' | 'command' }

/** Backs up DATA_DIR's database into `file` (which must not exist yet). */
export async function backupEmbeddedDatabase(dataDir: string, file: string): Promise<BackupResult> {
  const target = path.resolve(file)
  if (fs.existsSync(target)) throw new Error(`${target} already exists; name a new file`)
  if (!fs.existsSync(path.dirname(target))) throw new Error(`The folder ${path.dirname(target)} does not exist`)
  if ((await waitForEmbeddedServer(dataDir)) || (await isControlSocketAnswering(dataDir))) {
    const dump = await requestBackup(dataDir)
    return { file: target, bytes: await writeDump(dump, target), tarBytes: dump.tarBytes, through: 'server' }
  }
  if (!hasDatabase(dataDir)) throw new Error(`There is no embedded database in ${path.resolve(dataDir)}`)
  const release = acquireDataDirLock(dataDir)
  let db: PGlite | undefined
  try {
    db = await openEmbeddedPGlite(dataDir)
    const dump = await dumpDataFolder(db)
    return { file: target, bytes: await writeDump(dump, target), tarBytes: dump.tarBytes, through: 'command' }
  } finally {
    await db?.close().catch(() => {})
    release()
  }
}

/** Names in a tar archive (ustar headers: name at 0, size in octal at 124, prefix at 345). */
function tarEntryNames(tar: Buffer) {
  const names: string[] = []
  for (let offset = 0; offset + 512 <= tar.length;) {
    const header = tar.subarray(offset, offset + 512)
    if (header.every((byte) => byte === 0)) break
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '')
    const prefix = field(345, 155)
    names.push((prefix ? `${prefix}/` : '') + field(0, 100))
    const size = Number.parseInt(field(124, 12).trim() || '0', 8)
    if (!Number.isFinite(size)) break
    offset += 512 + Math.ceil(size / 512) * 512
  }
  return names
}

/** The backup's tar, unzipped, after checking that it holds a PostgreSQL data folder. */
function readBackup(file: string) {
  if (!fs.existsSync(file)) throw new Error(`No backup file at ${file}`)
  let tar = fs.readFileSync(file)
  if (tar[0] === 0x1f && tar[1] === 0x8b) {
    try {
      tar = zlib.gunzipSync(tar)
    } catch (error) {
      throw new Error(`${file} is not a readable backup (${(error as Error).message})`)
    }
  }
  // PGlite names entries from the data folder's root: `/PG_VERSION`.
  if (!tarEntryNames(tar).some((name) => name.replace(/^\.?\//, '') === 'PG_VERSION')) {
    throw new Error(`${file} is not a backup of an embedded database (no PG_VERSION in it)`)
  }
  return tar
}

export type RestoreResult = { keptAside: string | undefined; tables: Record<string, number> }

/**
 * Replaces DATA_DIR's database with the backup in `file`. Refuses while a process holds the folder; keeps the
 * previous database folder aside (pgdata.before-restore-<time>), and puts it back if the backup does not open.
 */
export async function restoreEmbeddedDatabase(dataDir: string, file: string): Promise<RestoreResult> {
  const tar = readBackup(path.resolve(file))
  const holder = readLockHolder(dataDir)
  if (holder !== undefined) {
    throw new Error(`Process ${holder} holds ${path.resolve(dataDir)} (a running server?); stop it before restoring`)
  }
  if (await isControlSocketAnswering(dataDir)) {
    throw new Error(`A process (in another container?) holds ${path.resolve(dataDir)}; stop it before restoring`)
  }
  const release = acquireDataDirLock(dataDir)
  const pgdata = embeddedPgDataDir(dataDir)
  let keptAside: string | undefined
  let db: PGlite | undefined
  try {
    if (fs.existsSync(pgdata)) {
      keptAside = `${pgdata}.before-restore-${new Date()
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z')}`
      fs.renameSync(pgdata, keptAside)
    }
    try {
      db = await openEmbeddedPGlite(dataDir, new Blob([tar], { type: 'application/x-tar' }))
      const tables = await countRows(db)
      await db.close()
      return { keptAside, tables }
    } catch (error) {
      await db?.close().catch(() => {})
      fs.rmSync(pgdata, { recursive: true, force: true })
      if (keptAside) fs.renameSync(keptAside, pgdata)
      throw new Error(`The backup did not open (${(error as Error).message}); the previous database is back in place`)
    }
  } finally {
    release()
  }
}

/** Rows in each table of the public schema: proof that the restored database opens and what it holds. */
async function countRows(db: PGlite) {
  const { rows } = await db.query<{ name: string }>(
    `select tablename as name from pg_tables where schemaname = 'public' order by tablename`,
  )
  if (rows.length === 0) throw new Error('it holds no tables')
  const counts: Record<string, number> = {}
  for (const { name } of rows) {
    const result = await db.query<{ count: number }>(
      `select count(*)::int as count from public."${name.replace(/"/g, '""')}"`,
    )
    counts[name] = result.rows[0]!.count
  }
  return counts
}
