/**
 * Budget of the speed-and-memory issue (issue 32, item 2): the server's resident memory (RSS) after start and after
 * 60 s of mixed load — at most 450 MiB on the embedded database and 250 MiB on the PostgreSQL server.
 *
 * The server is started as `npm run serve` starts it (build/server.js on plain Node). After start it idles 5 s, then
 * an owner with a card of 200 holders is made and the load runs: guests on the landing page and the sign-in page,
 * the owner on the account home and the card page, holders on their pass pages, and stamps at the counter, 2
 * connections each, all at once. RSS is sampled every 250 ms; the figures are after start, the peak under load, and
 * 5 s after the load (the process's settled size, which a VPS must hold for good).
 *
 *   npm run build && npm run bench:memory                                            (embedded database)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:memory         (PostgreSQL server)
 *   BENCH_SECONDS=600 …                                                                (a longer load)
 */
import os from 'node:os'
import { load, rssMiB, seedTrialOwnerWithCard, signIn, startBenchServer } from './lib.ts'
import type autocannon from 'autocannon'

const PASSWORD = 'Bench.mark1'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60)
const BUDGET_MIB = process.env.DATABASE_URL ? 250 : 450
const round = (value: number) => Math.round(value * 10) / 10
const loadAverage = () => os.loadavg().map(round).join(' / ')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const METRICS_TOKEN = 'bench-memory-metrics-token'

/** Where the memory is, from the process's own figures (Prometheus' default metrics): V8's heap, buffers, the rest. */
async function breakdown(baseUrl: string) {
  const text = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then(
    (response) => response.text(),
  )
  const mib = (name: string) => round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 1048576)
  return {
    heapTotal: mib('nodejs_heap_size_total_bytes'),
    heapUsed: mib('nodejs_heap_size_used_bytes'),
    external: mib('nodejs_external_memory_bytes'),
  }
}

const loadBefore = loadAverage()
// The client connects after the figures after start: on the embedded database the server process serves it.
const { server, scratch, client, stop } = await startBenchServer({
  label: 'memory',
  port: Number(process.env.BENCH_PORT ?? 3318),
  env: { RATE_LIMIT_FACTOR: '100000', LOG_LEVEL: 'warn', METRICS_TOKEN },
  connect: false,
})
const pid = server.child.pid!
try {
  await sleep(5_000)
  const afterStart = rssMiB(pid)
  const startBreakdown = await breakdown(server.baseUrl)

  await client.connect()
  const seeded = await seedTrialOwnerWithCard(client, {
    label: 'memory',
    password: PASSWORD,
    passes: 200,
    stampsRequired: 10,
  })
  const cookie = await signIn(server.baseUrl, seeded.email, PASSWORD)
  const base = server.baseUrl
  const passPaths = seeded.passes.map((pass) => ({ method: 'GET' as const, path: `/p/${pass.id}` }))
  let next = 0
  const owner = { headers: { cookie } }
  const mixes: (autocannon.Options & { url: string })[] = [
    { url: `${base}/` },
    { url: `${base}/login` },
    { url: `${base}/account`, ...owner },
    { url: `${base}/account/${seeded.cardId}`, ...owner },
    { url: base, requests: passPaths },
    {
      url: `${base}/account/${seeded.cardId}/scan`,
      method: 'POST' as const,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: `intent=stamp&code=${seeded.passes[next++ % seeded.passes.length]!.short_code}`,
          }),
        },
      ],
    },
  ]

  let peak = afterStart
  const samples: number[] = []
  const sampler = setInterval(() => {
    const rss = rssMiB(pid)
    peak = Math.max(peak, rss)
    samples.push(rss)
  }, 250)
  const results = await Promise.all(mixes.map((mix) => load({ ...mix, connections: 2, duration: SECONDS })))
  clearInterval(sampler)
  if (process.env.BENCH_VERBOSE)
    for (const [index, result] of results.entries())
      console.log(mixes[index]!.url, JSON.stringify(result.statusCodeStats), result.errors, result.timeouts)
  const requests = results.reduce((sum, result) => sum + result.requests.total, 0)
  const failures = results.reduce((sum, result) => sum + result.errors + result.timeouts + result.non2xx, 0)
  // Stamps answer with their redirect (302), which autocannon does not count as 2xx.
  const stampRedirects = results.at(-1)!.statusCodeStats?.['302']?.count ?? 0
  await sleep(5_000)
  const afterLoad = rssMiB(pid)
  const loadBreakdown = await breakdown(server.baseUrl)
  // BENCH_NODE_ARGS=--heapsnapshot-signal=SIGUSR2 BENCH_HEAP_SNAPSHOT=1: a heap snapshot after the load (in this
  // folder, Heap.*.heapsnapshot), to see what the heap holds.
  if (process.env.BENCH_HEAP_SNAPSHOT) {
    server.child.kill('SIGUSR2')
    await sleep(15_000)
  }
  // Growth under load: the last tenth of the run against the second tenth (the first fills caches and pools).
  const tenth = Math.max(1, Math.floor(samples.length / 10))
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)
  const growth = round(mean(samples.slice(-tenth)) - mean(samples.slice(tenth, 2 * tenth)))

  const figures = {
    database: scratch ? 'PostgreSQL server' : 'embedded',
    seconds: SECONDS,
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadAverage(),
    requests,
    failures: failures - stampRedirects,
    rssAfterStartMiB: afterStart,
    v8HeapAfterStartMiB: `${startBreakdown.heapUsed} used of ${startBreakdown.heapTotal}`,
    externalAfterStartMiB: startBreakdown.external,
    rssPeakMiB: peak,
    rssAfterLoadMiB: afterLoad,
    v8HeapAfterLoadMiB: `${loadBreakdown.heapUsed} used of ${loadBreakdown.heapTotal}`,
    externalAfterLoadMiB: loadBreakdown.external,
    rssGrowthLastTenthVsSecondMiB: growth,
    budgetMiB: BUDGET_MIB,
  }
  console.table(figures)
  const ok = afterStart <= BUDGET_MIB && afterLoad <= BUDGET_MIB && figures.failures === 0
  console.log(`memory budget (RSS ≤ ${BUDGET_MIB} MiB after start and after load): ${ok ? 'met' : 'NOT met'}`)
  process.exitCode = ok ? 0 : 1
} finally {
  await stop()
}
