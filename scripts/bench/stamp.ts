/**
 * Budget of the cards issue (#5, item 5): the stamp action at least 300 stamps/s — POST /account/{cardId}/scan with
 * `intent=stamp&code=...`, the owner's short-code form, answered by its redirect (post/redirect/get) — with
 * autocannon, 10 connections, 10 s, on the same machine. The stamps spread over many passes (round robin), so the
 * figure is the action's, not one row's lock queue; every answer must be the redirect, and afterwards the stamps
 * on the passes must equal the stamp_events rows and the redirects counted (plus at most the requests in flight
 * when a run's time was up): none lost, none doubled. It also prints the SQL statements one stamp takes.
 *
 * On the embedded database each stamp's commit waits for an fsync (docs/decisions/003-durability.md), and PGlite
 * runs one query at a time: the figure depends on the disk and on what else the machine runs (see loadAverage*).
 *
 *   npm run build && npm run bench:stamp            (embedded database)
 *   DATABASE_URL=postgres://... npm run bench:stamp (PostgreSQL server)
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import pg from 'pg'
import { hashPassword } from '#app/services/auth/password.server.ts'
import { databaseClient, load, signIn, startServer } from './lib.ts'

const PASSWORD = 'Bench.mark1'
const PASSES = 2000
const BUDGET = 300
const CONNECTIONS = 10
const SHORT_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const shortCode = () => Array.from(crypto.randomBytes(8), (byte) => SHORT_CODE_ALPHABET[byte % 32]).join('')
const round = (value: number) => Math.round(value * 10) / 10
const loadAverage = () => os.loadavg().map(round).join(' / ')
/** CPU time (user + system, ms) a process has used: with the embedded database, the app's and PGlite's together. */
function cpuMs(pid: number) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

/**
 * An owner on a trial with one card (20 stamps needed) and PASSES holders, made in SQL. The card's stamping rules are
 * on (issue 20: at most 5 stamps a scan, 100 a day per pass), so each stamp checks them and reads the pass's day; a
 * pause is not set, as the run stamps each pass about twice within seconds and every answer must be a stamp.
 */
async function seed(client: pg.Client) {
  const email = `bench-stamp-${Date.now()}@example.com`
  const { rows } = await client.query<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at) values ($1, $2, now()) returning id`,
    [email, await hashPassword(PASSWORD)],
  )
  const userId = rows[0]!.id
  await client.query(
    `insert into subscriptions (user_id, status, trial_ends_at) values ($1, 'trial', now() + interval '14 days')`,
    [userId],
  )
  const card = await client.query<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward, max_stamps_per_scan,
                        daily_stamp_cap)
     values ($1, $2, 'active', 'Bench card', 'Bench Bakery', 20, 'A free pastry', 5, 100) returning id`,
    [userId, `bench-${crypto.randomBytes(6).toString('hex')}`],
  )
  const codes = [...new Set(Array.from({ length: PASSES * 2 }, shortCode))].slice(0, PASSES)
  await client.query(`insert into passes (card_id, short_code) select $1, code from unnest($2::text[]) as code`, [
    card.rows[0]!.id,
    codes,
  ])
  return { email, cardId: card.rows[0]!.id, codes }
}

const loadBefore = loadAverage()
const server = await startServer({ port: Number(process.env.BENCH_PORT ?? 3313), env: { RATE_LIMIT_FACTOR: '100000' } })
const client = databaseClient(server.dataDir)
try {
  await client.connect()
  const { email, cardId, codes } = await seed(client)
  const cookie = await signIn(server.baseUrl, email, PASSWORD)
  // What one stamp costs the app: its SQL statements, from the answer's Server-Timing header.
  const probe = await fetch(`${server.baseUrl}/account/${cardId}/scan`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: `intent=stamp&code=${codes[0]}`,
  })
  if (probe.status !== 302) throw new Error(`a stamp answered ${probe.status}`)
  const statements = Number(/db;desc="(\d+) queries"/.exec(probe.headers.get('Server-Timing') ?? '')?.[1] ?? NaN)
  let next = 1
  const stampRequest = (duration: number) =>
    load({
      url: `${server.baseUrl}/account/${cardId}/scan`,
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      duration,
      connections: CONNECTIONS,
      requests: [
        { setupRequest: (request) => ({ ...request, body: `intent=stamp&code=${codes[next++ % codes.length]}` }) },
      ],
    })

  const warmUp = await stampRequest(3)
  const cpuBefore = cpuMs(server.child.pid!)
  const result = await stampRequest(10)
  const cpuPerStamp = round((cpuMs(server.child.pid!) - cpuBefore) / Math.max(1, result.requests.total))
  const redirects = (run: typeof result) =>
    (run.statusCodeStats as Record<string, { count: number } | undefined>)['302']?.count ?? 0
  // The probe's stamp, and the redirects autocannon counted; requests still in flight when a run's time is up are
  // answered by the server but not counted, so up to one per connection per run may be stored beyond this.
  const answered = 1 + redirects(warmUp) + redirects(result)
  const { rows } = await client.query<{ stamps: number; events: number }>(
    `select (select coalesce(sum(stamps), 0)::int from passes where card_id = $1) as stamps,
            (select count(*)::int from stamp_events where card_id = $1 and kind = 'stamp') as events`,
    [cardId],
  )
  const figures = {
    database: process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded',
    cores: os.availableParallelism(),
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadAverage(),
    passes: PASSES,
    statementsPerStamp: statements,
    stampsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    stampsInRun: result.requests.total,
    // The server's CPU per stamp: less dependent on what else the machine runs than the rate is.
    serverCpuMsPerStamp: cpuPerStamp,
    notRedirected: result.requests.total - redirects(result) + result.errors + result.timeouts,
    stampsStored: rows[0]!.stamps,
    stampEvents: rows[0]!.events,
    redirectsAnswered: answered,
  }
  console.table(figures)
  const ok =
    figures.stampsPerSecond >= BUDGET &&
    figures.notRedirected === 0 &&
    figures.stampEvents === figures.stampsStored &&
    figures.stampsStored >= answered &&
    figures.stampsStored <= answered + 2 * CONNECTIONS
  console.log(
    `stamp budget (≥ ${BUDGET} stamps/s, every answer a redirect, none lost or doubled): ${ok ? 'met' : 'NOT met'}`,
  )
  process.exitCode = ok ? 0 : 1
} finally {
  await client.end()
  await server.stop()
}
