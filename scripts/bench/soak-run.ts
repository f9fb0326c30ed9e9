/**
 * The soak (issue #8, item 5): a mixed load on the built app for a while, with the database taken away mid-run and
 * brought back, on loopback. Used by `npm run bench:soak` (60 s) and by tests/integration/soak.test.ts (15 s in CI).
 *
 * - Owners browse (/account, their card's page) and stamp their holders' cards by short code.
 * - Holders open a card's QR address, join (a new pass) and open their pass.
 * - An owner sends a push message to a large audience at the start, and another just before the cut, so a fan-out
 *   is in progress while the database is away (the push service runs as its own process and decrypts every body).
 * - The app reaches a scratch database on the PostgreSQL server through a TCP proxy this run owns: cutting the proxy
 *   takes the database away from this app only, and nothing else sharing the server notices.
 *
 * It then checks: no answer but the expected one, except 503 (with Retry-After) while the database was away and
 * shortly after; no failed connection to the app at any time; the app recovers by itself; every stamp the app
 * confirmed is stored once, and no stamp is stored twice (stamps on the passes = stamp events; stored ≤ confirmed +
 * the answers that could not tell); every device of every message sent received it (duplicates are counted: a
 * delivery whose outcome could not be written while the database was away is sent again). It reports the app's
 * resident memory over the load (sampled every 5 s): early, at the end, and the growth between.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import pg from 'pg'
import { hashPassword } from '#app/services/auth/password.server.ts'
import { pushEndpointClient } from '#tests/support/push-endpoint-client.ts'
import { pushEndpointCaCerts, type PushSubscriptionJSON } from '#tests/support/push-endpoint.ts'
import { startTcpProxy } from '#tests/support/tcp-proxy.ts'
import { signIn, startServer } from './lib.ts'

export type SoakOptions = {
  /** PostgreSQL server (an admin connection): the run makes a database of its own there and drops it after. */
  serverUrl: string
  seconds: number
  /** When the database is taken away (fraction of the run) and for how long. */
  cutAtFraction?: number
  cutSeconds?: number
  owners?: number
  holders?: number
  /** Devices each push message goes to. */
  audience?: number
  appPort?: number
  pushPort?: number
  log?: (line: string) => void
}

const PASSWORD = 'Soak.test1'
const PASSES_PER_OWNER = 1_000
/** How long after the database is back a 503 is still accepted (the pools notice on their next connection). */
const RECOVERY_GRACE_MS = 5_000
const REQUEST_TIMEOUT_MS = 30_000
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const shortCode = () => Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Sample = {
  route: string
  status: number | 'network error' | 'timeout'
  startedAt: number
  endedAt: number
  retryAfter: string | null
}

function startChild(args: string[]): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)))
  })
  return { child, ready }
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0

export async function runSoak(options: SoakOptions) {
  const {
    serverUrl,
    seconds,
    cutAtFraction = 0.4,
    cutSeconds = Math.max(3, Math.round(seconds / 12)),
    owners = 3,
    holders = 3,
    audience = 1_000,
    appPort = 3330,
    pushPort = 4530,
    log = () => {},
  } = options

  // A database of our own on the server, reached by the app through the proxy only.
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  const name = `stampwise_soak_${crypto.randomBytes(4).toString('hex')}`
  await admin.query(`create database ${name}`)
  const direct = new URL(serverUrl)
  direct.pathname = `/${name}`
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
  const viaProxy = new URL(direct)
  viaProxy.hostname = proxy.host
  viaProxy.port = String(proxy.port)

  const pushService = startChild(['tests/support/push-endpoint-server.ts', String(pushPort), String(pushPort + 1)])
  let server: Awaited<ReturnType<typeof startServer>> | undefined
  const db = new pg.Client({ connectionString: direct.toString() })
  try {
    await pushService.ready
    const push = pushEndpointClient(`http://127.0.0.1:${pushPort + 1}`)
    const { host } = await push.health()
    server = await startServer({
      port: appPort,
      env: {
        DATABASE_URL: viaProxy.toString(),
        RATE_LIMIT_FACTOR: '100000',
        PUSH_ALLOWED_HOSTS: host,
        NODE_EXTRA_CA_CERTS: pushEndpointCaCerts(),
        LOG_LEVEL: process.env.BENCH_SERVER_LOG ? 'info' : 'warn',
      },
    })
    const base = server.baseUrl
    await db.connect()

    // Owners, each with a card of 20 stamps and PASSES_PER_OWNER holders; one of them with the push audience.
    const hash = await hashPassword(PASSWORD)
    async function seedOwner(label: string, passes: number) {
      const email = `soak-${label}-${Date.now()}@example.com`
      const user = await db.query<{ id: string }>(
        `insert into users (email, password_hash, email_confirmed_at) values ($1, $2, now()) returning id`,
        [email, hash],
      )
      const userId = user.rows[0]!.id
      await db.query(
        `insert into subscriptions (user_id, status, trial_ends_at) values ($1, 'trial', now() + interval '14 days')`,
        [userId],
      )
      const card = await db.query<{ id: string; slug: string }>(
        `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
         values ($1, $2, 'active', 'Soak card', 'Soak Bakery', 20, 'A free pastry') returning id, slug`,
        [userId, `soak-${crypto.randomBytes(6).toString('hex')}`],
      )
      const codes = [...new Set(Array.from({ length: passes * 2 }, shortCode))].slice(0, passes)
      const rows = await db.query<{ id: string; short_code: string }>(
        `insert into passes (card_id, short_code) select $1, unnest($2::text[]) returning id, short_code`,
        [card.rows[0]!.id, codes],
      )
      const cookie = await signIn(base, email, PASSWORD)
      return { userId, cardId: card.rows[0]!.id, slug: card.rows[0]!.slug, passes: rows.rows, cookie }
    }
    const stampers: Awaited<ReturnType<typeof seedOwner>>[] = []
    for (let index = 0; index < owners; index++) stampers.push(await seedOwner(`owner${index}`, PASSES_PER_OWNER))
    const sender = await seedOwner('sender', audience)
    const devices: PushSubscriptionJSON[] = []
    for (let made = 0; made < audience; made += 200) {
      devices.push(
        ...(await Promise.all(Array.from({ length: Math.min(200, audience - made) }, () => push.createSubscription()))),
      )
    }
    await db.query(
      `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[])`,
      [
        sender.passes.map((pass) => pass.id),
        devices.map((d) => d.endpoint),
        devices.map((d) => d.keys.p256dh),
        devices.map((d) => d.keys.auth),
      ],
    )
    log(
      `seeded ${owners} owners × ${PASSES_PER_OWNER} passes and ${audience} push devices; load for ${seconds} s, database away at ${Math.round(seconds * cutAtFraction)} s for ${cutSeconds} s`,
    )

    // The load: each virtual user sends its next request when the last one is answered.
    const samples: Sample[] = []
    const confirmedStamps = new Map<string, number>()
    const unsureStamps = new Map<string, number>()
    const started = performance.now()
    const now = () => performance.now() - started
    const endAt = seconds * 1000
    const cutAt = endAt * cutAtFraction
    let cut = { from: Infinity, to: Infinity }

    async function request(route: string, url: string, init: RequestInit = {}) {
      const startedAt = now()
      try {
        // An answer that never comes is a failure too, not a stuck run.
        const response = await fetch(url, {
          redirect: 'manual',
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          ...init,
        })
        await response.arrayBuffer()
        const sample = {
          route,
          status: response.status,
          startedAt,
          endedAt: now(),
          retryAfter: response.headers.get('retry-after'),
        }
        samples.push(sample)
        return {
          status: response.status,
          location: response.headers.get('location'),
          cookie: response.headers.getSetCookie(),
        }
      } catch (error) {
        const status = (error as Error).name === 'TimeoutError' ? 'timeout' : 'network error'
        samples.push({ route, status, startedAt, endedAt: now(), retryAfter: null })
        return { status: 0, location: null, cookie: [] }
      }
    }

    async function owner(index: number) {
      const me = stampers[index]!
      let next = 0
      while (now() < endAt) {
        await request('GET /account', `${base}/account`, { headers: { cookie: me.cookie } })
        await request('GET /account/:cardId', `${base}/account/${me.cardId}`, { headers: { cookie: me.cookie } })
        for (let i = 0; i < 4 && now() < endAt; i++) {
          const pass = me.passes[next++ % me.passes.length]!
          const { status } = await request('POST /account/:cardId/scan (stamp)', `${base}/account/${me.cardId}/scan`, {
            method: 'POST',
            headers: { cookie: me.cookie, 'content-type': 'application/x-www-form-urlencoded' },
            body: `intent=stamp&code=${pass.short_code}`,
          })
          const book = status === 302 ? confirmedStamps : unsureStamps
          // A 503 (or no answer) cannot tell whether the stamp was stored before the database went away.
          if (status === 302 || status >= 500 || status === 0) book.set(pass.id, (book.get(pass.id) ?? 0) + 1)
        }
      }
    }

    async function holder(index: number) {
      const card = stampers[index % stampers.length]!
      while (now() < endAt) {
        await request('GET /c/:slug', `${base}/c/${card.slug}`)
        const joined = await request('POST /c/:slug (join)', `${base}/c/${card.slug}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: '',
        })
        if (joined.status !== 303 || !joined.location?.startsWith('/p/')) continue
        const cookie = joined.cookie.map((line) => line.split(';')[0]).join('; ')
        for (let i = 0; i < 3 && now() < endAt; i++) {
          await request('GET /p/:passId', `${base}${joined.location}`, { headers: { cookie } })
        }
      }
    }

    const messages: string[] = []
    async function sendMessage(title: string) {
      const draft = await db.query<{ id: string }>(
        `insert into notifications (card_id, user_id, title, body) values ($1, $2, $3, 'Two coffees for one until 6 pm') returning id`,
        [sender.cardId, sender.userId, title],
      )
      const id = draft.rows[0]!.id
      const { status } = await request(
        'POST confirm (send a push)',
        `${base}/account/${sender.cardId}/push_notification/confirm/${id}`,
        {
          method: 'POST',
          headers: { cookie: sender.cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'intent=send',
        },
      )
      if (status === 302 || status === 303) messages.push(id)
      return status
    }

    async function databaseAway() {
      await sleep(cutAt)
      proxy.cut()
      cut = { from: now(), to: Infinity }
      log(`database away at ${Math.round(cut.from)} ms`)
      await sleep(cutSeconds * 1000)
      proxy.restore()
      cut.to = now()
      log(`database back at ${Math.round(cut.to)} ms`)
    }

    async function pushes() {
      const first = await sendMessage('Soak message 1')
      if (first !== 302 && first !== 303) throw new Error(`'Send' answered ${first}`)
      // The second fan-out starts just before the database goes away. On a busy machine the Send may still be running
      // when it goes: its 503 is an honest answer (allowed while the database is away), and the owner sends a new
      // message once it is back. (A Send that committed before its 503 is a message of its own, not counted here.)
      await sleep(Math.max(0, cutAt - 1_500 - now()))
      for (;;) {
        const status = await sendMessage('Soak message 2')
        if (status === 302 || status === 303) return
        if (status !== 503 || cut.from === Infinity) throw new Error(`'Send' answered ${status}`)
        while (cut.to === Infinity) await sleep(100)
        await sleep(RECOVERY_GRACE_MS)
      }
    }

    // The app's resident memory every 5 s of the load (issue 32, item 2: flat under load).
    const rss: number[] = []
    const sampleRss = () => {
      // A server that has exited has no status to read: the run's other checks report why.
      const status = fs.existsSync(`/proc/${server!.child.pid}/status`)
        ? fs.readFileSync(`/proc/${server!.child.pid}/status`, 'utf8')
        : ''
      const kib = /VmRSS:\s+(\d+)/.exec(status)?.[1]
      if (kib) rss.push(Math.round(Number(kib) / 1024))
    }
    const progress = setInterval(() => {
      sampleRss()
      log(`${Math.round(now() / 1000)} s: ${samples.length} answers, app RSS ${rss.at(-1)} MiB`)
    }, 5_000)
    try {
      await Promise.all([
        ...Array.from({ length: owners }, (_, index) => owner(index)),
        ...Array.from({ length: holders }, (_, index) => holder(index)),
        databaseAway(),
        pushes(),
      ])
    } finally {
      clearInterval(progress)
    }
    const loadMs = now()
    log(`load done: ${samples.length} answers; waiting for the push messages to finish`)

    // Every message finishes by itself once the database is back (the jobs resume what was interrupted).
    const deadline = Date.now() + 120_000
    for (;;) {
      const { rows } = await db.query<{ pending: number }>(
        `select count(*)::int as pending from notifications where id = any($1::uuid[]) and status <> 'done'`,
        [messages],
      )
      if (rows[0]!.pending === 0) break
      if (Date.now() > deadline) throw new Error(`${rows[0]!.pending} push messages not done 2 minutes after the load`)
      await sleep(250)
    }
    const received = await push.received()
    const deliveries = messages.map((id) => {
      const perDevice = new Map<string, number>()
      for (const request of received)
        if (request.payload?.includes(id)) perDevice.set(request.endpoint, (perDevice.get(request.endpoint) ?? 0) + 1)
      const lost = devices.filter((device) => !perDevice.has(device.endpoint)).length
      const duplicates = [...perDevice.values()].reduce((sum, count) => sum + count - 1, 0)
      return { message: id, devices: devices.length, received: perDevice.size, lost, duplicates }
    })

    // Stamps: per pass, stored between confirmed and confirmed + unsure; stamps = events (none stored twice).
    const stored = await db.query<{ id: string; stamps: number; events: number }>(
      `select p.id, p.stamps, (select coalesce(sum(e.count), 0)::int from stamp_events e where e.pass_id = p.id and e.kind = 'stamp') as events
       from passes p where p.card_id = any($1::uuid[])`,
      [stampers.map((owner) => owner.cardId)],
    )
    let lostStamps = 0
    let doubledStamps = 0
    let storedStamps = 0
    for (const row of stored.rows) {
      const confirmed = confirmedStamps.get(row.id) ?? 0
      const unsure = unsureStamps.get(row.id) ?? 0
      storedStamps += row.stamps
      if (row.stamps < confirmed) lostStamps += confirmed - row.stamps
      if (row.stamps > confirmed + unsure) doubledStamps += row.stamps - confirmed - unsure
      if (row.events !== row.stamps) doubledStamps += Math.abs(row.events - row.stamps)
    }

    // Answers: the expected status, or a 503 with Retry-After that overlapped the outage (or its grace).
    const expected: Record<string, number[]> = {
      'POST /account/:cardId/scan (stamp)': [302],
      'POST /c/:slug (join)': [303],
      'POST confirm (send a push)': [302, 303],
    }
    const duringOutage = (sample: Sample) =>
      sample.endedAt >= cut.from && sample.startedAt <= cut.to + RECOVERY_GRACE_MS
    const unexpected: Sample[] = []
    let outage503 = 0
    for (const sample of samples) {
      if ((expected[sample.route] ?? [200]).includes(sample.status as number)) continue
      if (sample.status === 503 && sample.retryAfter && duringOutage(sample)) {
        outage503++
        continue
      }
      unexpected.push(sample)
    }
    // Recovery: from the database coming back to the first answer that needed it (a stamp) succeeding.
    const firstStampBack = samples
      .filter(
        (sample) => sample.route.startsWith('POST /account') && sample.status === 302 && sample.startedAt >= cut.to,
      )
      .sort((a, b) => a.endedAt - b.endedAt)[0]
    const recoveryMs = firstStampBack ? Math.round(firstStampBack.endedAt - cut.to) : null

    const routes = [...new Set(samples.map((sample) => sample.route))].map((route) => {
      const mine = samples.filter((sample) => sample.route === route)
      const times = mine.map((sample) => sample.endedAt - sample.startedAt).sort((a, b) => a - b)
      return {
        route,
        requests: mine.length,
        perSecond: Math.round((mine.length / loadMs) * 1000 * 10) / 10,
        p50Ms: Math.round(percentile(times, 50)),
        p99Ms: Math.round(percentile(times, 99)),
        '503s': mine.filter((sample) => sample.status === 503).length,
        unexpected: unexpected.filter((sample) => sample.route === route).length,
      }
    })
    const summary = {
      database: 'PostgreSQL server, through a TCP proxy',
      cores: os.availableParallelism(),
      loadSeconds: Math.round(loadMs / 100) / 10,
      requests: samples.length,
      databaseAwayMs: Math.round(cut.to - cut.from),
      outage503s: outage503,
      unexpectedAnswers: unexpected.length,
      recoveryMs,
      stampsConfirmed: [...confirmedStamps.values()].reduce((a, b) => a + b, 0),
      stampsUnsure: [...unsureStamps.values()].reduce((a, b) => a + b, 0),
      stampsStored: storedStamps,
      stampsLost: lostStamps,
      stampsDoubled: doubledStamps,
      pushMessages: messages.length,
      pushDevicesLost: deliveries.reduce((sum, d) => sum + d.lost, 0),
      pushDuplicates: deliveries.reduce((sum, d) => sum + d.duplicates, 0),
      ...rssFigures(rss),
    }
    const ok =
      unexpected.length === 0 &&
      outage503 > 0 &&
      recoveryMs !== null &&
      lostStamps === 0 &&
      doubledStamps === 0 &&
      messages.length === 2 &&
      summary.pushDevicesLost === 0
    return { ok, summary, routes, deliveries, unexpected: unexpected.slice(0, 20) }
  } finally {
    await db.end().catch(() => {})
    await server?.stop()
    pushService.child.kill('SIGTERM')
    await proxy.close()
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {})
    await admin.end()
  }
}

/**
 * The app's memory over the load: the median of the samples of its second tenth (after the first requests loaded what
 * they use) against the median of its last tenth. Growth beyond noise over a long run is a leak.
 */
function rssFigures(rss: number[]) {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
  const tenth = Math.max(1, Math.floor(rss.length / 10))
  const early = median(rss.slice(tenth, 2 * tenth))
  const late = median(rss.slice(-tenth))
  return { rssEarlyMiB: early, rssLateMiB: late, rssMaxMiB: Math.max(0, ...rss), rssGrowthMiB: late - early }
}

export type SoakReport = Awaited<ReturnType<typeof runSoak>>

export function printSoakReport(report: SoakReport) {
  console.table(report.routes)
  console.table(report.summary)
  console.table(report.deliveries)
  if (report.unexpected.length) console.log('unexpected answers (first 20):', report.unexpected)
}
