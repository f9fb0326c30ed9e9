/**
 * Budget of the speed-and-memory issue (issue 32, item 1): Stampwise's pages beside a bare Remix app on the same
 * stack (../shared/bench/baseline-remix: one /login page with a conform + zod form and remix-auth), side by side in
 * one run. Each Stampwise page is compared with the bare app's /login: autocannon, 10 connections, rounds of 5 s
 * alternating A B A B, the ratio of requests per second (Stampwise ÷ bare) and both p99s. Budgets: /login ≥ 0.8×,
 * the account home and the card page ≥ 0.6×, the pass page ≥ 1.0× on the PostgreSQL server and ≥ 0.7× embedded.
 * Absolute figures move with what else the machine runs; a ratio measured side by side barely does.
 *
 *   (cd ../shared/bench/baseline-remix && npm ci && npm run build)   once
 *   npm run build && npm run bench:framework                                           (embedded database)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:framework       (PostgreSQL server)
 *   BENCH_BASELINE_DIR=…, BENCH_ROUNDS=2, BENCH_ROUND_SECONDS=5
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { load, seedTrialOwnerWithCard, signIn, startBenchServer, summarize } from './lib.ts'

const PASSWORD = 'Bench.mark1'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 5)
const BASELINE_DIR = path.resolve(process.env.BENCH_BASELINE_DIR ?? '../shared/bench/baseline-remix')
const BASELINE_PORT = Number(process.env.BENCH_BASELINE_PORT ?? 3999)
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits
const loadAverage = () =>
  os
    .loadavg()
    .map((value) => round(value))
    .join(' / ')

async function startBaseline() {
  if (!fs.existsSync(path.join(BASELINE_DIR, 'build/server/index.js')))
    throw new Error(`build the bare Remix app first: (cd ${BASELINE_DIR} && npm ci && npm run build)`)
  const child = spawn('npm', ['start'], {
    cwd: BASELINE_DIR,
    env: { ...process.env, PORT: String(BASELINE_PORT), HOST: '127.0.0.1', DATABASE_URL: '' },
    stdio: 'ignore',
    detached: true,
  })
  const url = `http://127.0.0.1:${BASELINE_PORT}`
  const deadline = Date.now() + 60_000
  for (;;) {
    try {
      if ((await fetch(`${url}/login`)).status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the bare Remix app did not answer within 60 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { url, stop: () => process.kill(-child.pid!, 'SIGTERM') }
}

type Page = { name: string; budget: number; options: { url: string; headers?: Record<string, string> } }

const loadBefore = loadAverage()
const baseline = await startBaseline()
const { server, scratch, client, stop } = await startBenchServer({
  label: 'framework',
  port: Number(process.env.BENCH_PORT ?? 3319),
  env: { RATE_LIMIT_FACTOR: '100000', LOG_LEVEL: 'warn' },
}).catch((error: unknown) => {
  // Not left running behind a failed start.
  baseline.stop()
  throw error
})
try {
  const seeded = await seedTrialOwnerWithCard(client, {
    label: 'framework',
    password: PASSWORD,
    passes: 1,
    stampsRequired: 10,
  })
  await client.query(`update passes set stamps = 3 where id = $1`, [seeded.passes[0]!.id])
  const cookie = await signIn(server.baseUrl, seeded.email, PASSWORD)
  const owner = { cookie }
  const pages: Page[] = [
    { name: 'GET /login', budget: 0.8, options: { url: `${server.baseUrl}/login` } },
    { name: 'GET /account', budget: 0.6, options: { url: `${server.baseUrl}/account`, headers: owner } },
    {
      name: 'GET /account/{cardId}',
      budget: 0.6,
      options: { url: `${server.baseUrl}/account/${seeded.cardId}`, headers: owner },
    },
    {
      name: 'GET /p/{passId}',
      budget: scratch ? 1.0 : 0.7,
      options: { url: `${server.baseUrl}/p/${seeded.passes[0]!.id}` },
    },
  ]
  const bare = { url: `${baseline.url}/login` }
  for (const page of pages) {
    const status = (await fetch(page.options.url, { headers: page.options.headers, redirect: 'manual' })).status
    if (status !== 200) throw new Error(`${page.name} answered ${status}`)
  }
  // Warm-up: JIT, pools and caches on both.
  await load({ ...bare, duration: 2 })
  for (const page of pages) await load({ ...page.options, duration: 2 })

  const rows = []
  let met = true
  for (const page of pages) {
    const ours = { requests: 0, seconds: 0, p99: 0, failures: 0 }
    const theirs = { requests: 0, seconds: 0, p99: 0, failures: 0 }
    for (let index = 0; index < ROUNDS; index++) {
      for (const [side, options] of [
        [theirs, bare],
        [ours, page.options],
      ] as const) {
        const result = summarize(page.name, await load({ ...options, duration: ROUND_SECONDS }))
        side.requests += result.requests
        side.seconds += ROUND_SECONDS
        side.p99 = Math.max(side.p99, result.p99Ms)
        side.failures += result.failures
      }
    }
    const ratio = round(ours.requests / theirs.requests, 2)
    const ok = ratio >= page.budget && ours.failures === 0
    met &&= ok
    rows.push({
      page: page.name,
      requestsPerSecond: Math.round(ours.requests / ours.seconds),
      p99Ms: ours.p99,
      bareRequestsPerSecond: Math.round(theirs.requests / theirs.seconds),
      bareP99Ms: theirs.p99,
      ratio,
      budget: `≥ ${page.budget}`,
      failures: ours.failures,
      met: ok ? 'yes' : 'NO',
    })
  }
  console.log(
    `database: ${scratch ? 'PostgreSQL server' : 'embedded'}, cores: ${os.availableParallelism()}, rounds: ${ROUNDS} × ${ROUND_SECONDS} s each side, load average before: ${loadBefore}, after: ${loadAverage()}`,
  )
  console.table(rows)
  console.log(`framework budgets: ${met ? 'met' : 'NOT met'}`)
  process.exitCode = met ? 0 : 1
} finally {
  await stop()
  baseline.stop()
}
