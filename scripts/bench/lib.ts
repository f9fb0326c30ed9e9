import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import pg from 'pg'
import { hashPassword } from '#app/services/auth/password.server.ts'

/** `npm run serve`'s arguments to node (package.json): the benchmarks measure the server as it is run. */
const SERVE_ARGS = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { serve: string } }
).scripts.serve
  .split(' ')
  .slice(1)

/**
 * Starts the built server (`npm run build`) as a child process on a fresh embedded database (or DATABASE_URL) and
 * waits for it.
 */
export async function startServer({
  port,
  env = {},
}: {
  port: number
  env?: Record<string, string>
}): Promise<{ child: ChildProcess; baseUrl: string; startupMs: number; dataDir: string; stop: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-bench-'))
  const baseUrl = `http://127.0.0.1:${port}`
  const started = Date.now()
  // BENCH_NODE_ARGS: extra node flags for the server, e.g. --cpu-prof to see where its time goes.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  // As `npm run serve` starts it: the compiled server (scripts/build-server.ts) with its node flags.
  const child = spawn(process.execPath, [...nodeArgs, ...SERVE_ARGS], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      SESSION_SECRET: 'bench-secret-not-for-production-use-0123456789',
      PORT: String(port),
      APP_URL: baseUrl,
      DATA_DIR: dataDir,
      ...env,
    },
    // BENCH_SERVER_LOG: a file for the server's log lines (JSON), to see what it did during a run.
    stdio: [
      'ignore',
      process.env.BENCH_SERVER_LOG ? fs.openSync(process.env.BENCH_SERVER_LOG, 'w') : 'ignore',
      'inherit',
    ],
  })
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
    try {
      const response = await fetch(`${baseUrl}/`)
      if (response.status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      // Not left running behind a failed benchmark.
      child.kill('SIGKILL')
      throw new Error('server did not answer within 60 s')
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const startupMs = Date.now() - started
  return {
    child,
    baseUrl,
    startupMs,
    dataDir,
    stop: async () => {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return Math.round((kib / 1024) * 10) / 10
}

export async function load(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ connections: 10, duration: 10, ...options }, (error, result) =>
      error ? reject(error) : resolve(result),
    )
  })
}

export function summarize(name: string, result: autocannon.Result) {
  const non2xx = result.non2xx + result.errors + result.timeouts
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    failures: non2xx,
  }
}

/** Signs in through the JSON call, as a browser would; answers the `__session=…` cookie to send with each request. */
export async function signIn(baseUrl: string, email: string, password: string) {
  const response = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  if (response.status !== 200) throw new Error(`login answered ${response.status}`)
  return response.headers
    .getSetCookie()
    .find((line) => line.startsWith('__session='))!
    .split(';')[0]!
}

/** A client of the bench server's database: DATABASE_URL, or the embedded one through its socket in `dataDir`. */
export function databaseClient(dataDir: string) {
  return process.env.DATABASE_URL
    ? new pg.Client({ connectionString: process.env.DATABASE_URL })
    : new pg.Client({ host: dataDir, port: 5432, user: 'postgres', database: 'postgres' })
}

/** With DATABASE_URL: a database of the bench's own on that server (`stampwise_bench_{label}_…`), dropped after. */
export async function scratchServerDatabase(label: string) {
  if (!process.env.DATABASE_URL) return undefined
  const url = new URL(process.env.DATABASE_URL)
  const name = `stampwise_bench_${label}_${crypto.randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await admin.connect()
  await admin.query(`create database ${name}`)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`)
      await admin.end()
    },
  }
}

/**
 * What every bench with a database starts from, made and taken down in one place: with DATABASE_URL a database of the
 * bench's own on that server (`scratchServerDatabase(label)`), the built server on it (`startServer`), and a `pg`
 * client of that same database (of the embedded one otherwise), connected unless `connect: false` (to connect it
 * later, or not at all). `stop()` ends the client (its errors ignored), stops the server and drops the scratch
 * database (`keepDatabase`: it stays), in that order, each even if one before failed. If starting fails, what was
 * already made is taken down the same way.
 */
export async function startBenchServer({
  label,
  port,
  env = {},
  connect = true,
}: {
  label: string
  port: number
  env?: Record<string, string>
  connect?: boolean
}) {
  const scratch = await scratchServerDatabase(label)
  let server: Awaited<ReturnType<typeof startServer>> | undefined
  let client: pg.Client | undefined
  const stop = async ({ keepDatabase = false }: { keepDatabase?: boolean } = {}) => {
    try {
      await client?.end().catch(() => {})
      await server?.stop()
    } finally {
      if (!keepDatabase) await scratch?.drop()
    }
  }
  try {
    server = await startServer({ port, env: { ...env, ...(scratch ? { DATABASE_URL: scratch.url } : {}) } })
    client = scratch ? new pg.Client({ connectionString: scratch.url }) : databaseClient(server.dataDir)
    if (connect) await client.connect()
  } catch (error) {
    // The failure to start is what is thrown, not one in taking down.
    await stop().catch(() => {})
    throw error
  }
  return { server, scratch, client, baseUrl: server.baseUrl, stop }
}

export type BenchServer = Awaited<ReturnType<typeof startBenchServer>>

const SHORT_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
/** A pass's short code as the app makes them (8 characters of an alphabet without look-alikes). */
export const benchShortCode = () => Array.from(crypto.randomBytes(8), (byte) => SHORT_CODE_ALPHABET[byte % 32]).join('')

/** A confirmed owner on a 14-day trial, signing in with `password`: where every seeded card starts. */
export async function seedTrialOwner(client: pg.Client, { label, password }: { label: string; password: string }) {
  const email = `bench-${label}-${Date.now()}@example.com`
  const { rows } = await client.query<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at) values ($1, $2, now()) returning id`,
    [email, await hashPassword(password)],
  )
  const userId = rows[0]!.id
  await client.query(
    `insert into subscriptions (user_id, status, trial_ends_at) values ($1, 'trial', now() + interval '14 days')`,
    [userId],
  )
  return { email, userId }
}

/**
 * An owner on a trial (signing in with `password`) with one active card of `stampsRequired` stamps and `passes`
 * holders, made in SQL: what the wallet benchmarks start from.
 */
export async function seedTrialOwnerWithCard(
  client: pg.Client,
  {
    label,
    password,
    passes,
    stampsRequired,
  }: { label: string; password: string; passes: number; stampsRequired: number },
) {
  const { email, userId } = await seedTrialOwner(client, { label, password })
  const card = await client.query<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward, terms, stamp_icon)
     values ($1, $2, 'active', 'Coffee card', 'Bench Bakery', $3, 'A free coffee', 'One stamp per visit', 'coffee')
     returning id`,
    [userId, `bench-${crypto.randomBytes(6).toString('hex')}`, stampsRequired],
  )
  const cardId = card.rows[0]!.id
  const codes = [...new Set(Array.from({ length: passes * 2 }, benchShortCode))].slice(0, passes)
  // A thousand a statement, each its own transaction: every pass added updates its owner's users row (migration
  // 0004's version trigger), and 100,000 updates of one row in one transaction each check the unique index past all
  // the row's earlier versions (quadratic: minutes). Between transactions the old versions are pruned.
  const rows: { id: string; short_code: string }[] = []
  for (let start = 0; start < codes.length; start += 1000) {
    const inserted = await client.query<{ id: string; short_code: string }>(
      `insert into passes (card_id, short_code) select $1, code from unnest($2::text[]) as code
       returning id, short_code`,
      [cardId, codes.slice(start, start + 1000)],
    )
    rows.push(...inserted.rows)
  }
  return { email, userId, cardId, passes: rows }
}
