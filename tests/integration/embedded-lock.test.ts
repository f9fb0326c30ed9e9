import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, test } from 'vitest'
import { embeddedSocketPath, readLockHolder } from '#app/server/embedded-db.server.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { killChildren, runTs, runTsToEnd } from '#tests/support/child-process.ts'
import { createBlankDataDir } from '#tests/support/scratch-databases.ts'

/*
 * One process opens a data folder: the lock file keeps a second one out, a lock left by a process that died is
 * taken over, and the socket a crashed server left behind is replaced.
 */

const HOLDER = 'tests/fixtures/hold-database.ts'

afterEach(killChildren)

const lockPath = (dir: string) => path.join(dir, 'stampwise.lock')

/** Every file under `dir` with its size and modification time (the socket's inode too). */
function listFiles(dir: string) {
  const out: string[] = []
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name)
    const stat = fs.lstatSync(file)
    if (!stat.isDirectory()) out.push(`${path.relative(dir, file)} ${stat.size} ${stat.mtimeMs} ${stat.ino}`)
  }
  return out.sort()
}

async function answers(dir: string) {
  const client = new pg.Client({ host: dir, user: 'postgres', database: 'postgres' })
  await client.connect()
  try {
    return (await client.query<{ one: number }>('select 1 as one')).rows[0]?.one === 1
  } finally {
    await client.end()
  }
}

/** A pid that no process has any more. */
async function deadPid() {
  const child = runTs('tests/fixtures/exit-at-once.ts')
  await child.exited
  return child.pid
}

// Its databases are its own (a data folder, a fresh server database), whatever TEST_DATABASE_URL says: the
// PostgreSQL-server run would repeat the same work and prove nothing more, so it runs in the embedded run only.
describe.skipIf(usingServer())('the data folder lock', () => {
  test('a second server on a folder held by a live server stops with a clear error and touches nothing', async () => {
    const dataDir = await createBlankDataDir('lock-held')
    try {
      const holder = runTs(HOLDER, { env: { DATA_DIR: dataDir.dir } })
      await holder.waitForLine((line) => line === 'ready', 60_000)
      const before = listFiles(dataDir.dir)

      const second = await runTsToEnd('server.ts', { env: { DATA_DIR: dataDir.dir, PORT: '0' } })
      expect(second.code).toBe(1)
      expect(second.stderr).toBe(
        `The data folder ${dataDir.dir} is already open in process ${holder.pid}; stop that process or use another DATA_DIR\n`,
      )
      expect(listFiles(dataDir.dir)).toEqual(before)
      expect(readLockHolder(dataDir.dir)).toBe(holder.pid)
      expect(await answers(dataDir.dir)).toBe(true)
    } finally {
      await killChildren() // before removing the folder they hold
      dataDir.remove()
    }
  }, 90_000)

  test.each([
    ['names a process that has exited', async () => `${await deadPid()}\n`],
    ['holds no pid', () => Promise.resolve('')],
    ['holds garbage', () => Promise.resolve('not a pid\n')],
  ])(
    'a lock file that %s is taken over',
    async (_, content) => {
      const dataDir = await createBlankDataDir('lock-stale')
      try {
        fs.writeFileSync(lockPath(dataDir.dir), await content())
        const holder = runTs(HOLDER, { env: { DATA_DIR: dataDir.dir } })
        await holder.waitForLine((line) => line === 'ready', 60_000)
        expect(fs.readFileSync(lockPath(dataDir.dir), 'utf8').split('\n')[0]).toBe(String(holder.pid))
        expect(await answers(dataDir.dir)).toBe(true)
      } finally {
        await killChildren() // before removing the folder they hold
        dataDir.remove()
      }
    },
    60_000,
  )

  test('a lock file naming a pid that another process now has is taken over', async () => {
    // After a crash and a container restart the dead server's pid may belong to another process; the lock records
    // when its process started (Linux), which tells the two apart.
    const dataDir = await createBlankDataDir('lock-reused')
    try {
      const other = runTs('tests/fixtures/idle.ts')
      fs.writeFileSync(lockPath(dataDir.dir), `${other.pid}\n1\n`)
      expect(readLockHolder(dataDir.dir)).toBeUndefined()
      const holder = runTs(HOLDER, { env: { DATA_DIR: dataDir.dir } })
      await holder.waitForLine((line) => line === 'ready', 60_000)
      expect(readLockHolder(dataDir.dir)).toBe(holder.pid)

      // Written by a live server, the same kind of lock does keep others out.
      const second = await runTsToEnd(HOLDER, { env: { DATA_DIR: dataDir.dir } })
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(`is already open in process ${holder.pid}`)
    } finally {
      await killChildren() // before removing the folder they hold
      dataDir.remove()
    }
  }, 60_000)

  test('after a crash, the next server takes over the lock and replaces the dead socket; a clean stop removes both', async () => {
    const dataDir = await createBlankDataDir('lock-crash')
    const socket = embeddedSocketPath(dataDir.dir)
    try {
      const crashed = runTs(HOLDER, { env: { DATA_DIR: dataDir.dir } })
      await crashed.waitForLine((line) => line === 'ready', 60_000)
      const deadSocket = fs.lstatSync(socket).ino
      crashed.process.kill('SIGKILL')
      await crashed.exited

      // What the crash left: a lock naming a dead process, and a socket file nobody listens on.
      expect(fs.existsSync(lockPath(dataDir.dir))).toBe(true)
      expect(readLockHolder(dataDir.dir)).toBeUndefined()
      await expect(answers(dataDir.dir)).rejects.toThrow(/ECONNREFUSED/)

      // A command does not wait for the dead server: it opens the folder itself.
      const started = Date.now()
      const migrate = await runTsToEnd('scripts/db-migrate.ts', { env: { DATA_DIR: dataDir.dir } })
      expect(migrate.stderr).toBe('')
      expect(migrate.code).toBe(0)
      expect(migrate.stdout).not.toContain('through the running server')
      expect(Date.now() - started).toBeLessThan(45_000)
      expect(fs.existsSync(lockPath(dataDir.dir))).toBe(false)

      const next = runTs(HOLDER, { env: { DATA_DIR: dataDir.dir } })
      await next.waitForLine((line) => line === 'ready', 60_000)
      expect(readLockHolder(dataDir.dir)).toBe(next.pid)
      expect(fs.lstatSync(socket).ino).not.toBe(deadSocket)
      expect(await answers(dataDir.dir)).toBe(true)

      next.process.kill('SIGTERM')
      expect(await next.exited).toEqual({ code: 0, signal: null })
      expect(fs.existsSync(socket)).toBe(false)
      expect(fs.existsSync(lockPath(dataDir.dir))).toBe(false)
    } finally {
      await killChildren() // before removing the folder they hold
      dataDir.remove()
    }
  }, 120_000)
})
