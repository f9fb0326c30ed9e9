import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll } from 'vitest'
import { startEmbeddedDatabase } from '#app/server/embedded-db.server.ts'

/**
 * Extra databases for tests that must run on both databases whatever TEST_DATABASE_URL says (schema parity,
 * durability): an empty database on the PostgreSQL server, or an empty temp folder for the embedded one.
 */

export const SERVER_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: SERVER_URL })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/** A new, empty database on the PostgreSQL server; `drop()` removes it even with connections left open. */
export async function createServerDatabase(label: string) {
  const name = `stampwise_${label}_${process.pid}_${crypto.randomBytes(4).toString('hex')}`
  await adminQuery(`create database ${name}`)
  const url = new URL(SERVER_URL)
  url.pathname = `/${name}`
  return { name, url: url.toString(), drop: () => adminQuery(`drop database if exists ${name} with (force)`) }
}

/** A new, empty temp folder to use as DATA_DIR; `remove()` deletes it. */
export function createDataDir(label: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sw-${label}-`))
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

let blank: Promise<string> | undefined

afterAll(async () => {
  const dir = await blank?.catch(() => undefined)
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
  blank = undefined
})

/**
 * A new temp folder holding an initialised but empty (unmigrated) embedded database, as a server leaves it on
 * its first start. PGlite's initdb takes seconds, so it runs once per test file (removed after the file) and each
 * call copies the result.
 */
export async function createBlankDataDir(label: string) {
  blank ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-blank-'))
    const embedded = await startEmbeddedDatabase(dir, { maxConnections: 1 })
    await embedded.close()
    return dir
  })()
  const source = await blank
  const target = createDataDir(label)
  fs.cpSync(source, target.dir, { recursive: true })
  return target
}
