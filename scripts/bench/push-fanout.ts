/**
 * Budgets of the push fan-out (issue #6, then issue #19 item 7; docs/decisions/041-push-fan-out-speed.md): a message
 * to 2,000 and to 10,000 subscribed devices, from the owner's 'Send' to the last delivery at a local HTTPS push
 * service (tests/support/push-endpoint-server.ts: checks VAPID, decrypts every body), against web-push's own loop
 * (`sendNotification` with RAW_CONCURRENCY requests in flight, what one process reasonably keeps: two chunk jobs × 50)
 * to as many other subscriptions of the same service, in the same run. Budgets: the first request reaches the push
 * service within 250 ms of Send; 2,000 devices take at most 1.25× the loop's time, 10,000 at most the loop's time.
 * The app server's memory is sampled during the send: delivery streams rows in claims, so it must stay flat (it is
 * compared with the same send to 1,000 devices). BENCH_HOLDERS=n[,m…] runs other sizes (1.25× below 10,000).
 *
 * Every part is its own process (app server, push service, raw loop), so none borrows another's CPU unseen.
 *
 *   npm run build && npm run bench:push-fanout            (embedded database)
 *   DATABASE_URL=postgres://... npm run bench:push-fanout (PostgreSQL server)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { pushEndpointClient } from '#tests/support/push-endpoint-client.ts'
import { pushEndpointCaCerts, type PushSubscriptionJSON } from '#tests/support/push-endpoint.ts'
import { rssMiB, seedTrialOwnerWithCard, signIn, startServer } from './lib.ts'

const SIZES = (process.env.BENCH_HOLDERS ?? '2000,10000').split(',').map(Number)
const SMALL = 1_000
/** The loop's requests in flight: fixed, whatever the app's own concurrency is tuned to. */
const RAW_CONCURRENCY = 100
const FIRST_MESSAGE_BUDGET_MS = 250
/** Our time ÷ the loop's at most this: 1.25 below 10,000 devices, 1.0 from 10,000. */
const ratioBudget = (devices: number) => (devices >= 10_000 ? 1 : 1.25)
const PASSWORD = 'Bench.mark1'
const PUSH_PORT = Number(process.env.BENCH_PUSH_PORT ?? 4940)
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits

function startChild(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; firstLine: Promise<string>; output: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      if (out.includes('\n')) resolve(out.split('\n')[0]!)
    })
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)))
  })
  const output = new Promise<string>((resolve) => child.once('close', () => resolve(out)))
  return { child, firstLine, output }
}

const endpointProcess = startChild(['tests/support/push-endpoint-server.ts', String(PUSH_PORT), String(PUSH_PORT + 1)])
await endpointProcess.firstLine
const push = pushEndpointClient(`http://127.0.0.1:${PUSH_PORT + 1}`)
const { host } = await push.health()

const server = await startServer({
  port: Number(process.env.BENCH_PORT ?? 3314),
  env: { RATE_LIMIT_FACTOR: '100000', PUSH_ALLOWED_HOSTS: host, NODE_EXTRA_CA_CERTS: pushEndpointCaCerts() },
})
const client = process.env.DATABASE_URL
  ? new pg.Client({ connectionString: process.env.DATABASE_URL })
  : new pg.Client({ host: server.dataDir, port: 5432, user: 'postgres', database: 'postgres' })

async function subscriptions(count: number) {
  const list: PushSubscriptionJSON[] = []
  // Made in parallel batches: each is a key pair made by the push service.
  for (let made = 0; made < count; made += 200) {
    list.push(
      ...(await Promise.all(Array.from({ length: Math.min(200, count - made) }, () => push.createSubscription()))),
    )
  }
  return list
}

/** An owner with a card whose `count` holders each have a device subscribed; answers what 'Send' needs. */
async function seedAudience(count: number) {
  const { email, userId, cardId, passes } = await seedTrialOwnerWithCard(client, {
    label: `push-${count}`,
    password: PASSWORD,
    passes: count,
    stampsRequired: 10,
  })
  const devices = await subscriptions(count)
  await client.query(
    `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[])`,
    [
      passes.map((pass) => pass.id),
      devices.map((d) => d.endpoint),
      devices.map((d) => d.keys.p256dh),
      devices.map((d) => d.keys.auth),
    ],
  )
  const draft = await client.query<{ id: string }>(
    `insert into notifications (card_id, user_id, title, body) values ($1, $2, 'Happy hour', 'Two coffees for one until 6 pm') returning id`,
    [cardId, userId],
  )
  const cookie = await signIn(server.baseUrl, email, PASSWORD)
  return { cardId, notificationId: draft.rows[0]!.id, cookie, endpoints: devices.map((device) => device.endpoint) }
}

/**
 * Presses 'Send' on the confirm page and waits for the push service to have every delivery; samples the server's
 * memory.
 */
async function sendAndWait(audience: Awaited<ReturnType<typeof seedAudience>>) {
  const baselineMiB = rssMiB(server.child.pid!)
  let peakMiB = baselineMiB
  const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, rssMiB(server.child.pid!))), 50)
  const started = Date.now()
  const answer = await fetch(
    `${server.baseUrl}/account/${audience.cardId}/push_notification/confirm/${audience.notificationId}`,
    {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: audience.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'intent=send',
    },
  )
  if (answer.status !== 302 && answer.status !== 303) throw new Error(`'Send' answered ${answer.status}`)
  const answeredMs = Date.now() - started
  // Polls the database (cheap) until no delivery is pending, then asks the push service when the last one arrived.
  for (;;) {
    const { rows } = await client.query<{ status: string }>(`select status from notifications where id = $1`, [
      audience.notificationId,
    ])
    if (rows[0]?.status === 'done') break
    if (Date.now() - started > 600_000) throw new Error(`message still ${rows[0]?.status} after 10 minutes`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const mine = (await push.received()).filter((request) => request.payload?.includes(audience.notificationId))
  if (mine.length !== audience.endpoints.length)
    throw new Error(`${mine.length} of ${audience.endpoints.length} delivered`)
  const first = Math.min(...mine.map((request) => request.at))
  const last = Math.max(...mine.map((request) => request.at))
  clearInterval(sampler)
  return {
    ms: last - started,
    answeredMs,
    firstMs: first - started,
    baselineMiB,
    peakMiB,
    growthMiB: round(peakMiB - baselineMiB, 1),
  }
}

async function rawLoop(count: number) {
  const devices = await subscriptions(count)
  const file = path.join(os.tmpdir(), `sw-bench-push-${process.pid}.json`)
  fs.writeFileSync(file, JSON.stringify(devices))
  const raw = startChild(['scripts/bench/push-raw-loop.ts', file, String(RAW_CONCURRENCY)], {
    NODE_EXTRA_CA_CERTS: pushEndpointCaCerts(),
  })
  const result = JSON.parse(await raw.firstLine) as { sent: number; failed: number; ms: number }
  fs.rmSync(file, { force: true })
  return result
}

try {
  await client.connect()
  // Warm-up and the memory yardstick: the same send to 1,000 devices.
  const small = await sendAndWait(await seedAudience(SMALL))
  const results = []
  for (const devices of SIZES) {
    await push.reset()
    const raw = await rawLoop(devices)
    await push.reset()
    const ours = await sendAndWait(await seedAudience(devices))
    const ratio = round(ours.ms / raw.ms)
    // Flat: more devices may not cost more memory; a margin for the heap's own growth and GC timing.
    const flat = ours.growthMiB <= small.growthMiB + 48
    const ok = ours.firstMs <= FIRST_MESSAGE_BUDGET_MS && ratio <= ratioBudget(devices) && raw.failed === 0 && flat
    results.push({ devices, ok, ratio, firstMs: ours.firstMs, flat })
    console.table({
      database: process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded',
      cores: os.availableParallelism(),
      loadAverage: os
        .loadavg()
        .map((value) => round(value, 1))
        .join(' / '),
      devices,
      rawLoopConcurrency: RAW_CONCURRENCY,
      rawLoopMs: raw.ms,
      rawLoopFailed: raw.failed,
      sendAnsweredMs: ours.answeredMs,
      sendToFirstDeliveryMs: ours.firstMs,
      sendToLastDeliveryMs: ours.ms,
      deliveriesPerSecond: Math.round(devices / (ours.ms / 1000)),
      ratioOursOverRaw: ratio,
      ratioBudget: ratioBudget(devices),
      serverRssBaselineMiB: ours.baselineMiB,
      serverRssPeakMiB: ours.peakMiB,
      serverRssGrowthMiB: ours.growthMiB,
      [`serverRssGrowthFor${SMALL}MiB`]: small.growthMiB,
    })
  }
  for (const result of results) {
    console.log(
      `push fan-out to ${result.devices} (first ≤ ${FIRST_MESSAGE_BUDGET_MS} ms, ours ≤ ${ratioBudget(result.devices)}× ` +
        `the loop, memory flat): ${result.ok ? 'met' : 'NOT met'} (first ${result.firstMs} ms, ` +
        `ratio ${result.ratio}, memory ${result.flat ? 'flat' : 'grew'})`,
    )
  }
  process.exitCode = results.every((result) => result.ok) ? 0 : 1
} finally {
  await client.end().catch(() => {})
  await server.stop()
  endpointProcess.child.kill('SIGTERM')
}
