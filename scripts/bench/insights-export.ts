/**
 * The CSV exports at scale (issue 18: the 1,000,000-row export with the server's memory growth under 50 MB):
 * `measureExport` downloads one export from a running server while sampling the server process's RSS, for the
 * insights benchmark to call. Run on its own, it seeds one card with 100,000 holders and 1,000,000 stamp events over
 * a year (Pacific/Auckland) and measures stamps.csv twice (a fast client; a slow one reading 512 KB/s of gzip, slower
 * than the server writes, which the server must wait for rather than hold the file) and holders.csv.
 *
 *   npm run build && tsx scripts/bench/insights-export.ts                          (embedded database)
 *   DATABASE_URL=postgres://... tsx scripts/bench/insights-export.ts               (a scratch database on that server)
 */
import http from 'node:http'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import zlib from 'node:zlib'
import pg from 'pg'
import { databaseClient, rssMiB, scratchServerDatabase, seedTrialOwnerWithCard, signIn, startServer } from './lib.ts'

export type ExportMeasure = {
  rows: number
  /** The CSV's bytes (after gzip, when the server compressed it) and what crossed the wire. */
  bytes: number
  wireBytes: number
  contentEncoding: string | null
  ms: number
  rssBeforeMb: number
  rssPeakMb: number
  rssGrowthMb: number
}

/**
 * Downloads `/account/{cardId}/export/{kind}.csv` (gzip accepted, as a browser would) and counts its records,
 * sampling the server's RSS every 20 ms. `readBytesPerSecond` reads the answer no faster than that (a slow client).
 */
export async function measureExport({
  baseUrl,
  cookie,
  cardId,
  pid,
  kind = 'stamps',
  readBytesPerSecond,
}: {
  baseUrl: string
  cookie: string
  cardId: string
  pid: number
  kind?: 'stamps' | 'holders'
  readBytesPerSecond?: number
}): Promise<ExportMeasure> {
  const rssBeforeMb = rssMiB(pid)
  let rssPeakMb = rssBeforeMb
  const sampler = setInterval(() => (rssPeakMb = Math.max(rssPeakMb, rssMiB(pid))), 20)
  const started = performance.now()
  try {
    const counted = await new Promise<Omit<ExportMeasure, 'ms' | 'rssBeforeMb' | 'rssPeakMb' | 'rssGrowthMb'>>(
      (resolve, reject) => {
        const request = http.get(
          new URL(`/account/${cardId}/export/${kind}.csv`, baseUrl),
          { headers: { Cookie: cookie, 'Accept-Encoding': 'gzip' } },
          (response) => {
            if (response.statusCode !== 200) {
              response.resume()
              return reject(new Error(`${kind}.csv answered ${response.statusCode}`))
            }
            const encoding = response.headers['content-encoding'] ?? null
            let wireBytes = 0
            let bytes = 0
            let lineEnds = 0
            const readStarted = performance.now()
            response.on('data', (chunk: Buffer) => {
              wireBytes += chunk.length
              if (!readBytesPerSecond) return
              const due = readStarted + (wireBytes / readBytesPerSecond) * 1000
              const wait = due - performance.now()
              if (wait > 0) {
                response.pause()
                setTimeout(() => response.resume(), wait)
              }
            })
            const body = encoding === 'gzip' ? response.pipe(zlib.createGunzip()) : response
            body.on('data', (chunk: Buffer) => {
              bytes += chunk.length
              for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) lineEnds++
            })
            body.on('end', () => resolve({ rows: lineEnds - 1, bytes, wireBytes, contentEncoding: encoding }))
            body.on('error', reject)
            response.on('error', reject)
          },
        )
        request.on('error', reject)
      },
    )
    const ms = Math.round(performance.now() - started)
    rssPeakMb = Math.max(rssPeakMb, rssMiB(pid))
    return { ...counted, ms, rssBeforeMb, rssPeakMb, rssGrowthMb: Math.round((rssPeakMb - rssBeforeMb) * 10) / 10 }
  } finally {
    clearInterval(sampler)
  }
}

export const HOLDERS = 100_000
export const EVENTS = 1_000_000
export const PASSWORD = 'Bench.mark1'

/**
 * 100,000 holders and 1,000,000 events over the past year, written in SQL with the triggers off (the insights rows
 * are not what this measures): mostly stamps, a redemption every 12th, an undo (of the stamp before) every 50th.
 */
export async function seedExportCard(client: pg.Client) {
  const { email, userId, cardId } = await seedTrialOwnerWithCard(client, {
    label: 'export',
    password: PASSWORD,
    passes: 0,
    stampsRequired: 10,
  })
  await client.query(`update users set time_zone = 'Pacific/Auckland' where id = $1`, [userId])
  await client.query('set session_replication_role = replica')
  await client.query(
    `insert into passes (card_id, short_code, stamps, rewards_redeemed, created_at, last_visit_at)
     select $1, (select string_agg(substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', ((i >> (5 * k)) & 31) + 1, 1), ''
                                   order by k) from generate_series(0, 7) k),
            i % 11, i % 4, now() - interval '365 days' + i * interval '5 minutes', now() - (i % 30) * interval '1 day'
     from generate_series(1, $2::int) i`,
    [cardId, HOLDERS],
  )
  await client.query(
    `with p as (select array_agg(id order by created_at) as ids from passes where card_id = $1)
     insert into stamp_events (pass_id, card_id, kind, count, created_at, undone_at)
     select p.ids[1 + i % $3::int], $1,
            case when i % 12 = 11 then 'redeem' when i % 50 = 49 then 'undo' else 'stamp' end, 1 + i % 3,
            now() - interval '365 days' + i * interval '31 seconds',
            case when i % 50 = 48 then now() - interval '365 days' + (i + 1) * interval '31 seconds' end
     from p, generate_series(0, $2::int - 1) i`,
    [cardId, EVENTS, HOLDERS],
  )
  await client.query('set session_replication_role = origin')
  await client.query('analyze passes; analyze stamp_events')
  return { email, cardId }
}

async function main() {
  const scratch = await scratchServerDatabase('export')
  let server: Awaited<ReturnType<typeof startServer>> | undefined
  let client: pg.Client | undefined
  try {
    server = await startServer({
      port: Number(process.env.BENCH_PORT ?? 3350),
      env: { RATE_LIMIT_FACTOR: '100000', ...(scratch ? { DATABASE_URL: scratch.url } : {}) },
    })
    client = scratch ? new pg.Client({ connectionString: scratch.url }) : databaseClient(server.dataDir)
    await client.connect()
    const seedStarted = performance.now()
    const { email, cardId } = await seedExportCard(client)
    const seedMs = Math.round(performance.now() - seedStarted)
    const cookie = await signIn(server.baseUrl, email, PASSWORD)
    const pid = server.child.pid!
    const common = { baseUrl: server.baseUrl, cookie, cardId, pid }
    // Warm: the route's modules and the pool's connections, as a server that has answered before.
    await measureExport({ ...common, kind: 'holders' })
    const results = {
      database: scratch ? 'PostgreSQL server' : 'embedded',
      seedMs,
      stamps: await measureExport({ ...common, kind: 'stamps' }),
      stampsSlowClient: await measureExport({ ...common, kind: 'stamps', readBytesPerSecond: 512 * 1024 }),
      holders: await measureExport({ ...common, kind: 'holders' }),
    }
    console.log(JSON.stringify(results, null, 2))
    const worst = Math.max(results.stamps.rssGrowthMb, results.stampsSlowClient.rssGrowthMb)
    console.log(`${EVENTS.toLocaleString('en')}-row export: RSS growth ${worst} MB (budget 50 MB)`)
    if (results.stamps.rows !== EVENTS || results.stampsSlowClient.rows !== EVENTS || results.holders.rows !== HOLDERS)
      process.exitCode = 1
    if (worst >= 50) process.exitCode = 1
  } finally {
    await client?.end()
    await server?.stop()
    await scratch?.drop()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main()
