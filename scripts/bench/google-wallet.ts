/**
 * Budgets of the Google Wallet issue (#17), on the built server with a test service account and the local fake of
 * Google's API (tests/support/google-wallet-fake.ts, in this process: token grant, loyalty objects, addMessage,
 * bodies checked against Google's typings):
 * - a stamp to its object's PATCH at the fake: p99 < 1 s (200 stamps one at a time through the owner's scan action,
 *   from the stamp's request to the fake recording the PATCH; then 10 at once, reported). Between stamps a pause of
 *   0.5-1 s, as at a counter: back to back, a stamp would meet the job queue in step with the one before (on the
 *   embedded database the job, still recording the last PATCH, claims the new row at once; on the server the worker
 *   has just begun its 0.5 s poll), not at a random moment as a real stamp does;
 * - a message to the card's BENCH_SAVED (2,000) passes saved in Google Wallet, from the owner's 'Send' to the last
 *   addMessage at the fake, within 1.5 × a plain loop of the same addMessage calls one after another (the app's own
 *   Google client, scripts/bench/google-wallet-loop.ts, in its own process) in the same run. Where the time goes is
 *   printed with it: the two job wake-ups (the message's job queues the rows, then the Google Wallet job sends
 *   them), the claims (their calls at the fake, and the pause between claims), and the CPU per call of the app
 *   server and of the fake.
 * Every pass is saved through the real route (GET /p/{passId}/google-wallet, 303 to Google's save page), as a holder
 * saves it. With DATABASE_URL the bench makes a database of its own on that server and drops it after.
 *
 *   npm run build && npm run bench:google-wallet            (embedded database)
 *   DATABASE_URL=postgres://... npm run bench:google-wallet (PostgreSQL server)
 *
 * BENCH_SERVER_LOG=<file> keeps the app's log lines (each job run that sent calls logs how many); BENCH_NODE_ARGS
 * (e.g. --cpu-prof) profiles the server (scripts/bench/lib.ts).
 */
import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { GOOGLE_CONCURRENCY } from '#app/services/wallet/google-wallet-delivery.server.ts'
import { makeGoogleServiceAccount } from '#tests/support/google-service-account.ts'
import { startGoogleWalletFake, type FakeRequest } from '#tests/support/google-wallet-fake.ts'
import { seedTrialOwnerWithCard, signIn, startBenchServer, type BenchServer } from './lib.ts'

const PASSWORD = 'Bench.mark1'
const SAVED = Number(process.env.BENCH_SAVED ?? 2000)
const STAMPS_ONE_BY_ONE = 200
const STAMPS_TEN_AT_ONCE = 100
const SAVE_CONNECTIONS = 4
const STAMP_BUDGET_MS = 1000
const RATIO_BUDGET = 1.5
const STAMPS_REQUIRED = 20
const MESSAGE = { title: 'Happy hour', body: 'Two coffees for one until 6 pm' }
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits
const loadAverage = () =>
  os
    .loadavg()
    .map((value) => round(value))
    .join(' / ')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** The pause after a stamp's PATCH: the job has ended, and the next stamp finds its worker at any point of its poll. */
const pauseBetweenStamps = () => sleep(500 + Math.random() * 500)
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}
/** CPU time (user + system, ms) a process has used: with the embedded database, the app's and PGlite's together. */
function cpuMs(pid: number) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}
/** CPU time (ms) this process has used: the fake's, mostly, while the app or the loop calls it. */
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}
const spread = (values: number[]) => ({
  p50: percentile(values, 50),
  p95: percentile(values, 95),
  p99: percentile(values, 99),
  max: Math.max(...values),
})

/** An owner on a trial with one card and `passes` holders, made in SQL, and a draft message to its holders. */
async function seed(client: pg.Client, passes: number) {
  const seeded = await seedTrialOwnerWithCard(client, {
    label: 'google',
    password: PASSWORD,
    passes,
    stampsRequired: STAMPS_REQUIRED,
  })
  const draft = await client.query<{ id: string }>(
    `insert into notifications (card_id, user_id, title, body) values ($1, $2, $3, $4) returning id`,
    [seeded.cardId, seeded.userId, MESSAGE.title, MESSAGE.body],
  )
  return { ...seeded, notificationId: draft.rows[0]!.id }
}

/** Runs the plain loop in its own process; answers its one JSON line. */
async function plainLoop(input: object): Promise<{ sent: number; failed: number; ms: number }> {
  const file = path.join(os.tmpdir(), `sw-bench-google-${process.pid}.json`)
  fs.writeFileSync(file, JSON.stringify(input))
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/google-wallet-loop.ts', file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    if (code !== 0) throw new Error(`the plain loop exited with ${code}`)
    return JSON.parse(out.trim().split('\n').at(-1)!) as { sent: number; failed: number; ms: number }
  } finally {
    fs.rmSync(file, { force: true })
  }
}

const account = makeGoogleServiceAccount()
const fake = await startGoogleWalletFake({
  issuerId: account.issuerId,
  clientEmail: account.clientEmail,
  publicKeyPem: account.publicKeyPem,
})
const objectId = (passId: string) => `${account.issuerId}.pass-${passId}`
const objectPath = (passId: string) => `/walletobjects/v1/loyaltyObject/${objectId(passId)}`
const loadBefore = loadAverage()
let bench: BenchServer | undefined
try {
  bench = await startBenchServer({
    label: 'google',
    port: Number(process.env.BENCH_PORT ?? 3340),
    env: { RATE_LIMIT_FACTOR: '100000', ...account.env(fake.origin) },
  })
  const { server, scratch, client, baseUrl } = bench
  const { email, cardId, notificationId, passes } = await seed(client, SAVED)

  // 1. Every pass saved as a holder saves it: the first alone (it makes the card's class), then SAVE_CONNECTIONS
  // holders at once.
  const saveLatencies: number[] = []
  async function save(pass: { id: string }) {
    const started = performance.now()
    const response = await fetch(`${baseUrl}/p/${pass.id}/google-wallet`, { redirect: 'manual' })
    await response.arrayBuffer()
    saveLatencies.push(performance.now() - started)
    const location = response.headers.get('location') ?? ''
    if (response.status !== 303 || !location.startsWith('https://pay.google.com/gp/v/save/'))
      throw new Error(`'Save to Google Wallet' answered ${response.status} ${location}`)
  }
  const savesStarted = Date.now()
  await save(passes[0]!)
  let nextSave = 1
  await Promise.all(
    Array.from({ length: SAVE_CONNECTIONS }, async () => {
      while (nextSave < passes.length) await save(passes[nextSave++]!)
    }),
  )
  const savesSeconds = round((Date.now() - savesStarted) / 1000)
  const { rows: objectRows } = await client.query<{ count: number }>(
    `select count(*)::int as count from google_wallet_objects where card_id = $1 and state = 'active'`,
    [cardId],
  )
  if (objectRows[0]!.count !== SAVED || passes.some((pass) => !fake.getObject(objectId(pass.id))))
    throw new Error(`${objectRows[0]!.count} objects recorded for ${SAVED} saves`)

  // 2. A stamp to its PATCH: one after another (a counter), then 10 at once (a busy Saturday), each on a pass not
  // stamped yet, so its object shows '1 of N' once the PATCH is applied.
  const cookie = await signIn(baseUrl, email, PASSWORD)
  type Stamp = { passId: string; started: number; answered: number }
  async function stampAndWait(pass: { id: string; short_code: string }): Promise<Stamp> {
    const started = Date.now()
    const response = await fetch(`${baseUrl}/account/${cardId}/scan`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `intent=stamp&code=${pass.short_code}`,
    })
    await response.arrayBuffer()
    const answered = Date.now()
    if (response.status !== 302) throw new Error(`the stamp answered ${response.status}`)
    // The fake's object is read cheaply; the PATCH's exact time is taken from the fake's record afterwards.
    const shown = `1 of ${STAMPS_REQUIRED}`
    while (fake.getObject(objectId(pass.id))?.loyaltyPoints?.balance?.string !== shown) {
      if (Date.now() - started > 10_000) throw new Error('no PATCH within 10 s')
      await sleep(2)
    }
    return { passId: pass.id, started, answered }
  }
  const oneByOne: Stamp[] = []
  for (const pass of passes.slice(0, STAMPS_ONE_BY_ONE)) {
    oneByOne.push(await stampAndWait(pass))
    await pauseBetweenStamps()
  }
  const tenAtOnce: Stamp[] = []
  const burst = passes.slice(STAMPS_ONE_BY_ONE, STAMPS_ONE_BY_ONE + STAMPS_TEN_AT_ONCE)
  for (let index = 0; index < burst.length; index += 10) {
    tenAtOnce.push(...(await Promise.all(burst.slice(index, index + 10).map(stampAndWait))))
    await pauseBetweenStamps()
  }
  const patches = new Map<string, FakeRequest>()
  for (const request of fake.requests())
    if (request.method === 'PATCH' && request.status === 200) patches.set(request.path, request)
  const latencyOf = (stamps: Stamp[]) =>
    stamps.map((stamp) => {
      const patch = patches.get(objectPath(stamp.passId))
      if (!patch || patch.at < stamp.started) throw new Error(`no PATCH recorded for ${stamp.passId}`)
      return {
        total: patch.at - stamp.started,
        answer: stamp.answered - stamp.started,
        after: patch.at - stamp.answered,
      }
    })
  const oneByOneMs = latencyOf(oneByOne)
  const tenAtOnceMs = latencyOf(tenAtOnce)

  // 3. The message: 'Send' on the confirm page, to the last addMessage at the fake.
  const serverCpuBefore = cpuMs(server.child.pid!)
  const fakeCpuBefore = ownCpuMs()
  const sendStarted = Date.now()
  const answer = await fetch(`${baseUrl}/account/${cardId}/push_notification/confirm/${notificationId}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'intent=send',
  })
  await answer.arrayBuffer()
  const sendAnswered = Date.now()
  if (answer.status !== 302 && answer.status !== 303) throw new Error(`'Send' answered ${answer.status}`)
  const messageId = `message-${notificationId}`
  const isOurs = (request: FakeRequest) =>
    request.path.endsWith('/addMessage') &&
    (request.body as { message?: { id?: string } } | undefined)?.message?.id === messageId
  for (;;) {
    const { rows } = await client.query<{ status: string }>(`select status from notifications where id = $1`, [
      notificationId,
    ])
    if (rows[0]?.status === 'done') break
    if (Date.now() - sendStarted > 600_000) throw new Error(`message still ${rows[0]?.status} after 10 minutes`)
    await sleep(100)
  }
  const serverCpuMessage = cpuMs(server.child.pid!) - serverCpuBefore
  const fakeCpuMessage = ownCpuMs() - fakeCpuBefore
  const delivered = fake.requests().filter((request) => isOurs(request) && request.status === 200)
  const reached = new Set(delivered.map((request) => request.path))
  if (reached.size !== SAVED) throw new Error(`the message reached ${reached.size} of ${SAVED} saved passes`)
  const firstMessageAt = Math.min(...delivered.map((request) => request.at))
  const lastMessageAt = Math.max(...delivered.map((request) => request.at))
  // Where the time went, from the rows: when the message job queued them (the first wake-up), how many claims.
  const { rows: messageRows } = await client.query<{
    queued_ms: number
    first_sent_ms: number
    last_sent_ms: number
    rows: number
    attempts: number
  }>(
    `select (extract(epoch from min(created_at)) * 1000)::float8 as queued_ms,
            (extract(epoch from min(sent_at)) * 1000)::float8 as first_sent_ms,
            (extract(epoch from max(sent_at)) * 1000)::float8 as last_sent_ms,
            count(*)::int as rows, sum(attempts)::int as attempts
     from google_wallet_updates where notification_id = $1`,
    [notificationId],
  )
  const message = messageRows[0]!
  const oursMs = lastMessageAt - sendStarted
  // The job sends a claim of GOOGLE_CONCURRENCY calls, then writes their outcomes and claims again: the calls'
  // arrivals in groups of a claim show how long a claim's calls took at the fake, and the pause between claims.
  const arrivals = delivered.map((request) => request.at).sort((a, b) => a - b)
  const claimSpreads: number[] = []
  const claimGaps: number[] = []
  for (let index = 0; index < arrivals.length; index += GOOGLE_CONCURRENCY) {
    const group = arrivals.slice(index, index + GOOGLE_CONCURRENCY)
    claimSpreads.push(group.at(-1)! - group[0]!)
    if (index > 0) claimGaps.push(group[0]! - arrivals[index - 1]!)
  }

  // 4. The yardstick, in the same run: the same addMessage calls, one after another, to the same objects.
  const fakeCpuBeforeLoop = ownCpuMs()
  const loop = await plainLoop({
    issuerId: account.issuerId,
    serviceAccount: account.json(fake.tokenUri),
    apiOrigin: fake.origin,
    objectIds: passes.map((pass) => objectId(pass.id)),
    message: { id: `message-loop-${crypto.randomUUID()}`, ...MESSAGE },
  })
  const fakeCpuLoop = ownCpuMs() - fakeCpuBeforeLoop
  const ratio = round(oursMs / loop.ms, 2)

  const one = spread(oneByOneMs.map((stamp) => stamp.total))
  const ten = spread(tenAtOnceMs.map((stamp) => stamp.total))
  const figures = {
    database: scratch ? 'PostgreSQL server' : 'embedded',
    cores: os.availableParallelism(),
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadAverage(),
    savedPasses: SAVED,
    savesSeconds,
    [`saveP50Ms (${SAVE_CONNECTIONS} at once)`]: round(percentile(saveLatencies, 50)),
    saveP99Ms: round(percentile(saveLatencies, 99)),
    stampsOneByOne: oneByOneMs.length,
    stampToPatchP50Ms: one.p50,
    stampToPatchP95Ms: one.p95,
    stampToPatchP99Ms: one.p99,
    stampToPatchMaxMs: one.max,
    // The stamp's own answer, and from it to the PATCH (the job's wake-up, claim and call).
    stampAnswerP50Ms: percentile(
      oneByOneMs.map((stamp) => stamp.answer),
      50,
    ),
    answerToPatchP50Ms: percentile(
      oneByOneMs.map((stamp) => stamp.after),
      50,
    ),
    answerToPatchP99Ms: percentile(
      oneByOneMs.map((stamp) => stamp.after),
      99,
    ),
    stampsTenAtOnce: tenAtOnceMs.length,
    tenAtOnceP50Ms: ten.p50,
    tenAtOnceP99Ms: ten.p99,
    tenAtOnceMaxMs: ten.max,
    googleConcurrency: GOOGLE_CONCURRENCY,
    sendAnswerMs: sendAnswered - sendStarted,
    sendToRowsQueuedMs: Math.round(message.queued_ms - sendStarted),
    sendToFirstAddMessageMs: firstMessageAt - sendStarted,
    sendToLastAddMessageMs: oursMs,
    addMessagesPerSecond: Math.round(SAVED / ((lastMessageAt - firstMessageAt) / 1000)),
    messageRows: message.rows,
    messageAttempts: message.attempts,
    // Per claim: from its first call's arrival at the fake to its last, and from there to the next claim's first.
    claimCallsSpreadP50Ms: percentile(claimSpreads, 50),
    claimToClaimGapP50Ms: percentile(claimGaps, 50),
    claimToClaimGapP95Ms: percentile(claimGaps, 95),
    // CPU per addMessage: the app server's (with PGlite on the embedded database) and the fake's (this process).
    serverCpuMsPerMessage: round(serverCpuMessage / SAVED, 2),
    fakeCpuMsPerMessage: round(fakeCpuMessage / SAVED, 2),
    plainLoopMs: loop.ms,
    plainLoopFailed: loop.failed,
    fakeCpuMsPerLoopCall: round(fakeCpuLoop / SAVED, 2),
    ratioOursOverLoop: ratio,
    fakeViolations: fake.violations().length,
    tokenGrants: fake.tokenRequests(),
  }
  console.table(figures)
  for (const violation of fake.violations().slice(0, 5)) console.log(`violation: ${violation}`)
  const stampOk = one.p99 < STAMP_BUDGET_MS
  const messageOk = ratio <= RATIO_BUDGET && loop.failed === 0 && loop.sent === SAVED
  const ok = stampOk && messageOk && figures.fakeViolations === 0
  console.log(
    `Google Wallet budgets: stamp to PATCH p99 < ${STAMP_BUDGET_MS} ms: ${stampOk ? 'met' : 'NOT met'} (${one.p99} ms); ` +
      `message to ${SAVED} saved passes within ${RATIO_BUDGET} × a plain loop: ${messageOk ? 'met' : 'NOT met'} ` +
      `(${oursMs} ms vs ${loop.ms} ms, ${ratio} ×); fake violations: ${figures.fakeViolations}`,
  )
  process.exitCode = ok ? 0 : 1
} finally {
  await bench?.stop()
  await fake.close()
}
