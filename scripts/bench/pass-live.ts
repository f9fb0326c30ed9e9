/**
 * Budget of issue 30, item 1, the open pass's live updates: 5,000 pass pages open on one process (one event stream
 * each, GET /p/{passId}/live) cost under 100 MB of memory and no query per open pass per second (the feed reads all
 * their versions in one statement a second); then one stamp each, and the delay until the last page heard of it.
 * Printed: the server's memory before and with the streams, its CPU while they idle, and the delays.
 *
 *   npm run build && npm run bench:pass-live            (embedded database)
 *   DATABASE_URL=postgres://... npm run bench:pass-live (PostgreSQL server)
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import { databaseClient, rssMiB, startServer } from './lib.ts'

const PASSES = Number(process.env.BENCH_PASSES ?? 5_000)
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const code = () => Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The server's CPU time so far, in ms (user + system, from /proc). */
function cpuMs(pid: number) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

type Stream = { request: http.ClientRequest; opened: Promise<void>; changedAt: Promise<number> }

/** One page's stream: resolves `opened` at its first bytes and `changedAt` at its first 'change' event. */
function openStream(baseUrl: string, passId: string, agent: http.Agent): Stream {
  let opened!: () => void
  let changed!: (at: number) => void
  let failed!: (error: Error) => void
  const openedPromise = new Promise<void>((resolve, reject) => {
    opened = resolve
    failed = reject
  })
  const changedAt = new Promise<number>((resolve) => (changed = resolve))
  const request = http.get(`${baseUrl}/p/${passId}/live`, { agent, headers: { Accept: 'text/event-stream' } })
  request.on('response', (response) => {
    if (response.statusCode !== 200) return failed(new Error(`stream answered ${response.statusCode}`))
    let text = ''
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => {
      if (!text) opened()
      text += chunk
      if (text.includes('event: change')) changed(performance.now())
    })
  })
  request.on('error', (error) => failed(error))
  return { request, opened: openedPromise, changedAt }
}

const server = await startServer({ port: Number(process.env.BENCH_PORT ?? 3317), env: { RATE_LIMIT_FACTOR: '100000' } })
const client = databaseClient(server.dataDir)
const pid = server.child.pid!
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity })
const streams: Stream[] = []
try {
  await client.connect()
  const { rows: users } = await client.query<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at) values ($1, 'x', now()) returning id`,
    [`bench-live-${Date.now()}@example.com`],
  )
  const { rows: cards } = await client.query<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
     values ($1, $2, 'active', 'Coffee card', 'Bench Bakery', 10, 'A free coffee') returning id`,
    [users[0]!.id, `bench-live-${Date.now()}`],
  )
  const cardId = cards[0]!.id
  const { rows: passes } = await client.query<{ id: string }>(
    `insert into passes (card_id, short_code) select $1, unnest($2::text[]) returning id`,
    [cardId, Array.from({ length: PASSES }, code)],
  )

  await sleep(2_000)
  const rssBefore = rssMiB(pid)
  const openStarted = performance.now()
  for (const { id } of passes) streams.push(openStream(server.baseUrl, id, agent))
  await Promise.all(streams.map((stream) => stream.opened))
  const openMs = Math.round(performance.now() - openStarted)
  await sleep(3_000)
  const rssOpen = rssMiB(pid)

  // Idle with every page open: the feed's one statement a second is all the work.
  const idleSeconds = 5
  const cpuBefore = cpuMs(pid)
  await sleep(idleSeconds * 1000)
  const idleCpuMsPerSecond = Math.round((cpuMs(pid) - cpuBefore) / idleSeconds)

  // One stamp each, in one statement (as if every holder were stamped at once), then the delay to each page.
  const stamped = performance.now()
  await client.query(`update passes set stamps = stamps + 1 where card_id = $1`, [cardId])
  const delays = (await Promise.all(streams.map((stream) => stream.changedAt))).map((at) => at - stamped)
  delays.sort((a, b) => a - b)
  const rssAfter = rssMiB(pid)
  const figures = {
    database: process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded',
    cores: os.availableParallelism(),
    openPages: PASSES,
    openAllMs: openMs,
    rssBeforeMiB: rssBefore,
    rssWithPagesMiB: rssOpen,
    memoryForPagesMiB: Math.round((rssOpen - rssBefore) * 10) / 10,
    idleCpuMsPerSecond,
    firstPageMs: Math.round(delays[0]!),
    medianPageMs: Math.round(delays[Math.floor(delays.length / 2)]!),
    lastPageMs: Math.round(delays.at(-1)!),
    rssAfterStampMiB: rssAfter,
  }
  console.table(figures)
  const ok = figures.memoryForPagesMiB < 100 && figures.lastPageMs < 2_000
  console.log(
    `live pass budget (${PASSES} open pages under 100 MB, the last page within 2 s of a stamp): ${ok ? 'met' : 'NOT met'}`,
  )
  process.exitCode = ok ? 0 : 1
} finally {
  for (const stream of streams) stream.request.destroy()
  agent.destroy()
  await client.end()
  await server.stop()
}
