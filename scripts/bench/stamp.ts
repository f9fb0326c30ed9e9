/**
 * Budget of the cards issue (#5, item 5), raised by issue 32 (item 3): the stamp action at least 300 stamps/s on the
 * PostgreSQL server and 200/s embedded — POST /account/{cardId}/scan with `intent=stamp&code=...`, the owner's
 * short-code form, answered by its redirect (post/redirect/get) — with autocannon, 10 connections, 10 s, on the same
 * machine, with Apple Wallet and Google Wallet on, every automatic message on and the insights triggers kept. Some
 * holders keep the card in a wallet or allow notifications (scripts/bench/stamp-peers.ts: 10 % in a wallet, 6 % Web
 * Push), so wallet jobs and pushes really run, against local peers in this process. The stamps spread over many
 * passes (round robin), so the figure is the action's, not one row's lock queue; every answer must be the redirect,
 * and afterwards the stamps on the passes must equal the stamp_events rows and the redirects counted (plus at most
 * the requests in flight when a run's time was up): none lost, none doubled. It prints the SQL round trips one stamp
 * takes in its request (Server-Timing), the database's transactions per stamp over the run (the job queue's
 * statements included), and how long the wallet updates took from the stamp to their peers.
 *
 * On the embedded database each stamp's commit waits for an fsync (docs/decisions/003-durability.md), and PGlite
 * runs one query at a time: the figure depends on the disk and on what else the machine runs (see loadAverage*).
 * With DATABASE_URL the bench makes a database of its own on that server and drops it after.
 *
 *   npm run build && npm run bench:stamp            (embedded database)
 *   DATABASE_URL=postgres://... npm run bench:stamp (PostgreSQL server)
 */
import fs from 'node:fs'
import os from 'node:os'
import pg from 'pg'
import { load, signIn, startBenchServer } from './lib.ts'
import { addHolderDevices, seedStampCard, startStampPeers, walletWorkAfter } from './stamp-peers.ts'

const PASSWORD = 'Bench.mark1'
/** Enough that each pass is stamped about once or twice in the run (a full card would refuse). */
const PASSES = 4000
const BUDGET = process.env.DATABASE_URL ? 300 : 200
const CONNECTIONS = 10
const round = (value: number) => Math.round(value * 10) / 10
const loadAverage = () => os.loadavg().map(round).join(' / ')
/** CPU time (user + system, ms) a process has used: with the embedded database, the app's and PGlite's together. */
function cpuMs(pid: number) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}
/** Transactions the database has committed or rolled back (null where its statistics are off). */
async function transactions(client: pg.Client) {
  const { rows } = await client.query<{ count: string | null }>(
    `select (xact_commit + xact_rollback)::text as count from pg_stat_database where datname = current_database()`,
  )
  return rows[0]?.count ? Number(rows[0].count) : null
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1500))

const loadBefore = loadAverage()
const peers = await startStampPeers()
const { server, scratch, client, stop } = await startBenchServer({
  label: 'stamp',
  port: Number(process.env.BENCH_PORT ?? 3313),
  env: { RATE_LIMIT_FACTOR: '100000', ...peers.env },
})
try {
  const { email, cardId, passes, initialStamps } = await seedStampCard(client, { password: PASSWORD, passes: PASSES })
  const devices = await addHolderDevices(client, peers, server.baseUrl, passes)
  const codes = passes.map((pass) => pass.shortCode)
  const cookie = await signIn(server.baseUrl, email, PASSWORD)
  // What one stamp costs the app: its SQL round trips, from the answer's Server-Timing header.
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
  // A busy backend reports its transactions at most once a second: the counts are read after a pause.
  await settle()
  const runStarted = new Date()
  const transactionsBefore = await transactions(client)
  const cpuBefore = cpuMs(server.child.pid!)
  const result = await stampRequest(10)
  await settle()
  const transactionsAfter = await transactions(client)
  const cpuPerStamp = round((cpuMs(server.child.pid!) - cpuBefore) / Math.max(1, result.requests.total))
  const perStamp = (count: number | null) => (count === null ? null : round(count / Math.max(1, result.requests.total)))
  const redirects = (run: typeof result) =>
    (run.statusCodeStats as Record<string, { count: number } | undefined>)['302']?.count ?? 0
  // The probe's stamp, and the redirects autocannon counted; requests still in flight when a run's time is up are
  // answered by the server but not counted, so up to one per connection per run may be stored beyond this.
  const answered = 1 + redirects(warmUp) + redirects(result)
  const { rows } = await client.query<{ stamps: number; events: number }>(
    `select (select coalesce(sum(stamps), 0)::int - $2 from passes where card_id = $1) as stamps,
            (select count(*)::int from stamp_events where card_id = $1 and kind = 'stamp') as events`,
    [cardId, initialStamps],
  )
  const work = await walletWorkAfter(client, cardId, runStarted)
  const wallets = {
    applePushesSent: work.apple?.sent ?? 0,
    stampToApnsP50Ms: work.apple?.p50 ?? null,
    stampToApnsP99Ms: work.apple?.p99 ?? null,
    googleUpdatesSent: work.google?.sent ?? 0,
    stampToGoogleP50Ms: work.google?.p50 ?? null,
    stampToGoogleP99Ms: work.google?.p99 ?? null,
    pendingAfter: `${work.pending.apple} APNs / ${work.pending.google} Google / ${work.pending.web} web`,
    apnsReceived: peers.apns.requests().length,
    googleCallsReceived: peers.google.requests().length,
    webPushesReceived: peers.push.received().length,
    peerViolations: peers.apns.violations().length + peers.google.violations().length,
  }
  const figures = {
    database: scratch ? 'PostgreSQL server' : 'embedded',
    cores: os.availableParallelism(),
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadAverage(),
    passes: PASSES,
    appleWalletPasses: devices.apple,
    googleWalletPasses: devices.google,
    webPushPasses: devices.web,
    roundTripsPerStamp: statements,
    // Every process's: the app's stamps, its job queue (sends, fetches, completions) and its pollers (~20/s idle).
    databaseTransactionsPerStamp:
      transactionsBefore === null ? null : perStamp(transactionsAfter! - transactionsBefore),
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
    ...wallets,
  }
  console.table(figures)
  const ok =
    figures.stampsPerSecond >= BUDGET &&
    figures.notRedirected === 0 &&
    figures.stampEvents === figures.stampsStored &&
    figures.stampsStored >= answered &&
    figures.stampsStored <= answered + 2 * CONNECTIONS &&
    work.pending.apple + work.pending.google + work.pending.web === 0 &&
    wallets.peerViolations === 0
  console.log(
    `stamp budget (≥ ${BUDGET} stamps/s, every answer a redirect, none lost or doubled, wallet work done): ${ok ? 'met' : 'NOT met'}`,
  )
  process.exitCode = ok ? 0 : 1
} finally {
  await stop()
  await peers.close()
}
