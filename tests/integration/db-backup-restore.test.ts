import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { controlSocketPath } from '#app/server/embedded-control.server.ts'
import { readLockHolder, startEmbeddedDatabase } from '#app/server/embedded-db.server.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { killChildren, runTs, runTsToEnd } from '#tests/support/child-process.ts'
import { freePort } from '#tests/support/free-port.ts'
import { createBlankDataDir, createDataDir } from '#tests/support/scratch-databases.ts'
import { seedEveryTable } from '#tests/support/seed-every-table.ts'
import { checksums, readTableRows, type TableRows } from '#tests/support/table-rows.ts'

/*
 * `npm run db:backup` and `npm run db:restore` (scripts/db-backup.ts, scripts/db-restore.ts) around a real server
 * process (server.ts) on its own DATA_DIR: a backup asked for while the server runs and a client keeps writing
 * through its socket restores to exactly the rows committed up to one moment; a backup with no server running
 * restores to the very same rows; a restore refuses while the server runs and keeps the previous folder aside.
 *
 * The data folder is this test's own, whatever TEST_DATABASE_URL says: it runs in the embedded-database run only.
 */

let dataDir: ReturnType<typeof createDataDir>
let backups: ReturnType<typeof createDataDir>

const backup = (...args: string[]) => runTsToEnd('scripts/db-backup.ts', { env: { DATA_DIR: dataDir.dir }, args })
const restore = (...args: string[]) => runTsToEnd('scripts/db-restore.ts', { env: { DATA_DIR: dataDir.dir }, args })
const socketConfig = () => ({ host: path.resolve(dataDir.dir), user: 'postgres', database: 'postgres' })

async function withClient<T>(run: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client(socketConfig())
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/** The folder's rows, read by opening it in this process (no server may hold it). */
async function rowsInFolder() {
  const embedded = await startEmbeddedDatabase(dataDir.dir, { maxConnections: 2 })
  try {
    return await withClient(readTableRows)
  } finally {
    await embedded.close()
  }
}

/** Polls the health check until it answers 200 (the server logs nothing under NODE_ENV=test). */
async function waitForHealthy(url: string, server: ReturnType<typeof runTs>, withinMs = 90_000) {
  const deadline = Date.now() + withinMs
  while (Date.now() < deadline && server.process.exitCode === null) {
    const status = await fetch(url).then(
      (response) => response.status,
      () => 0,
    )
    if (status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${url} did not answer 200; stderr: ${server.stderr().slice(-2000)}`)
}

const auditId = (row: string) => Number(JSON.parse(row).id)

/** Inserts audit rows through the server's socket, each in a transaction left open a moment, until stopped. */
function startWriter() {
  const committed: number[] = []
  let stop = false
  const done = withClient(async (client) => {
    while (!stop) {
      await client.query('begin')
      const { rows } = await client.query<{ id: string }>(
        `insert into audit_log (action, target_type) values ('backup-test', 'writer') returning id::text`,
      )
      await new Promise((resolve) => setTimeout(resolve, 5)) // a transaction open while the dump may be taken
      await client.query('commit')
      committed.push(Number(rows[0]!.id))
    }
  })
  return { committed, stop: () => ((stop = true), done) }
}

beforeAll(() => {
  dataDir = createDataDir('backup')
  backups = createDataDir('backup-files')
})

afterAll(async () => {
  await killChildren()
  dataDir?.remove()
  backups?.remove()
})

describe.skipIf(usingServer())('npm run db:backup / db:restore', () => {
  test('round trip: a backup taken while the server runs and a client writes, another with no server; restores refuse a running server and give back exactly those rows', async () => {
    const port = await freePort()
    const server = runTs('server.ts', { env: { DATA_DIR: dataDir.dir, PORT: String(port) } })
    await waitForHealthy(`http://127.0.0.1:${port}/healthz`, server)
    expect(fs.statSync(controlSocketPath(dataDir.dir)).mode & 0o777).toBe(0o600)

    await withClient(async (client) => {
      await seedEveryTable(client, 'a')
      await seedEveryTable(client, 'b')
    })

    const writer = startWriter()
    await new Promise((resolve) => setTimeout(resolve, 300))
    const committedBefore = writer.committed.length
    const liveFile = path.join(backups.dir, 'live.tar.gz')
    const live = await backup(liveFile)
    const committedDuring = writer.committed.length
    await writer.stop()
    expect(live.stderr).toBe('')
    expect(live.code).toBe(0)
    expect(live.stdout).toContain('(by the running server)')
    expect(committedDuring).toBeGreaterThan(committedBefore) // the writer kept going while the dump was made
    const atBackupEnd = await withClient(readTableRows)

    // A restore while the server holds the folder is refused, and changes nothing.
    const refused = await restore(liveFile)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      new RegExp(`^Restore failed: Process ${server.pid} holds .*; stop it before restoring\\n$`),
    )
    expect(fs.readdirSync(dataDir.dir).filter((name) => name.startsWith('pgdata'))).toEqual(['pgdata'])

    server.process.kill('SIGTERM')
    expect(await server.exited).toEqual({ code: 0, signal: null })
    expect(fs.existsSync(controlSocketPath(dataDir.dir))).toBe(false)

    const quietFile = path.join(backups.dir, 'quiet.tar.gz')
    const quiet = await backup(quietFile)
    expect(quiet.stderr).toBe('')
    expect(quiet.stdout).toContain('(with no server running)')
    expect(readLockHolder(dataDir.dir)).toBeUndefined()
    const atRest = await rowsInFolder()

    // The live backup: every table as it was, and the writer's rows up to one moment, none missing before it.
    const restoredLive = await restore(liveFile)
    expect(restoredLive.stderr).toBe('')
    expect(restoredLive.code).toBe(0)
    expect(restoredLive.stdout).toMatch(
      /^The previous database is kept in .*pgdata\.before-restore-\d{8}T\d{6}Z; delete it/m,
    )
    const fromLive = await rowsInFolder()
    const writerRows = (rows: TableRows) => rows.audit_log!.filter((row) => JSON.parse(row).action === 'backup-test')
    const restoredIds = writerRows(fromLive)
      .map(auditId)
      .sort((a, b) => a - b)
    const lastRestored = restoredIds.at(-1) ?? 0
    expect(restoredIds).toEqual(writer.committed.filter((id) => id <= lastRestored))
    expect(restoredIds.length).toBeGreaterThanOrEqual(committedBefore)
    expect(restoredIds.length).toBeLessThanOrEqual(committedDuring + 1) // + 1: committed but not yet counted
    const upToBackup = (rows: TableRows) => ({
      ...rows,
      audit_log: rows.audit_log!.filter((row) => auditId(row) <= lastRestored),
    })
    expect(checksums(fromLive)).toEqual(checksums(upToBackup(atBackupEnd)))

    // The quiet backup: exactly the folder as the server left it.
    const restoredQuiet = await restore(quietFile)
    expect(restoredQuiet.code).toBe(0)
    expect(checksums(await rowsInFolder())).toEqual(checksums(atRest))
    expect(Object.values(atRest).every((rows) => rows.length > 0)).toBe(true) // every table compared holds rows
    expect(fs.readdirSync(dataDir.dir).filter((name) => name.startsWith('pgdata.before-restore-'))).toHaveLength(2)
  }, 300_000)

  test('without a file name the backup goes to DATA_DIR/backups; bad input gets one line and exit code 1', async () => {
    const made = await backup()
    expect(made.code).toBe(0)
    const [file] = fs.readdirSync(path.join(dataDir.dir, 'backups'))
    expect(file).toMatch(/^stampwise-\d{8}T\d{6}Z\.tar\.gz$/)
    const target = path.join(dataDir.dir, 'backups', file!)
    expect(made.stdout).toContain(target)

    const notABackup = path.join(backups.dir, 'notes.tar.gz')
    fs.writeFileSync(notABackup, 'not a backup')
    const cases: Array<[Awaited<ReturnType<typeof backup>>, RegExp]> = [
      [await backup(target), /^Backup failed: .* already exists; name a new file$/],
      [
        await backup(path.join(backups.dir, 'missing-folder', 'x.tar.gz')),
        /^Backup failed: The folder .*missing-folder does not exist$/,
      ],
      [await restore(), /^Usage: npm run db:restore -- <backup file>$/],
      [
        await restore(path.join(backups.dir, 'nothing.tar.gz')),
        /^Restore failed: No backup file at .*nothing\.tar\.gz$/,
      ],
      [await restore(notABackup), /^Restore failed: .*notes\.tar\.gz is not a backup of an embedded database/],
    ]
    for (const [result, message] of cases) {
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr.trim()).toMatch(message)
    }
    // None of that touched the database.
    expect(fs.readdirSync(dataDir.dir).filter((name) => name.startsWith('pgdata.before-restore-'))).toHaveLength(2)
  }, 120_000)

  test('a holder whose pid means nothing here (another container on the same volume) is still found by its socket', async () => {
    const other = await createBlankDataDir('backup-other')
    try {
      const holder = runTs('tests/fixtures/hold-database.ts', { env: { DATA_DIR: other.dir } })
      await holder.waitForLine((line) => line === 'ready', 60_000)
      // The lock file as a process of another pid namespace leaves it: a pid no process has here (above pid_max).
      fs.writeFileSync(path.join(other.dir, 'stampwise.lock'), `${2 ** 22 + 1}\n`)
      expect(readLockHolder(other.dir)).toBeUndefined()

      const file = path.join(backups.dir, 'other.tar.gz')
      const made = await runTsToEnd('scripts/db-backup.ts', { env: { DATA_DIR: other.dir }, args: [file] })
      expect(made.stderr).toBe('')
      expect(made.stdout).toContain('(by the running server)')
      const refused = await runTsToEnd('scripts/db-restore.ts', { env: { DATA_DIR: other.dir }, args: [file] })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(
        /^Restore failed: A process \(in another container\?\) holds .*; stop it before restoring\n$/,
      )

      holder.process.kill('SIGTERM')
      expect(await holder.exited).toEqual({ code: 0, signal: null })
    } finally {
      await killChildren()
      other.remove()
    }
  }, 120_000)
})
