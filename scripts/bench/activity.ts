/**
 * The activity (issue 20, item 5; no budget of its own: the pages' general one, p99 under 300 ms like the card page).
 * An owner with two cards and BENCH_EVENTS stamp events on each (150,000 unless said), spread over a year: the list's
 * first page unfiltered, at no location and by the owner as the person (2 connections, 10 s each), then the whole CSV
 * export (every row, keyset pages of 5,000), its time and the server's memory growth.
 *
 *   npm run build && npm run bench:activity                                   (embedded database)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:activity (PostgreSQL server)
 */
import os from 'node:os'
import pg from 'pg'
import { load, rssMiB, seedTrialOwnerWithCard, signIn, startBenchServer, summarize } from './lib.ts'

const PASSWORD = 'Bench.mark1'
const EVENTS_PER_CARD = Number(process.env.BENCH_EVENTS ?? 150_000)
const round = (value: number) => Math.round(value * 10) / 10

/** A second card, and EVENTS_PER_CARD stamps by the owner on each card's 1,000 passes, ids in time order. */
async function seedEvents(client: pg.Client, userId: string, cardId: string) {
  const second = await client.query<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
     values ($1, 'bench-activity-' || md5(random()::text), 'active', 'Tea card', 'Bench Bakery', 10, 'A tea')
     returning id`,
    [userId],
  )
  await client.query(
    `insert into passes (card_id, short_code)
     select $1, substr(translate(md5(random()::text), '0145abcdef', 'GHJKLMNPQR'), 1, 8) from generate_series(1, 1000)`,
    [second.rows[0]!.id],
  )
  await client.query('alter table stamp_events disable trigger user')
  for (const card of [cardId, second.rows[0]!.id]) {
    await client.query(
      `insert into stamp_events (pass_id, card_id, actor_id, kind, count, created_at)
       select ps.ids[1 + floor(random() * array_length(ps.ids, 1))::int], $1::uuid, $2::uuid, 'stamp', 1,
              now() - random() * interval '364 days' as at
       from (select array_agg(id) as ids from passes where card_id = $1) ps, generate_series(1, $3)
       order by at`,
      [card, userId, EVENTS_PER_CARD],
    )
  }
  await client.query('alter table stamp_events enable trigger user')
  await client.query('vacuum (analyze) stamp_events')
}

/** Downloads the whole CSV export, counting its records and sampling the server's memory. */
async function measureCsv(baseUrl: string, cookie: string, pid: number) {
  const before = rssMiB(pid)
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 20)
  const started = performance.now()
  try {
    const response = await fetch(`${baseUrl}/account/activity.csv`, { headers: { cookie } })
    if (response.status !== 200) throw new Error(`activity.csv answered ${response.status}`)
    const text = await response.text()
    return {
      rows: text.split('\r\n').filter(Boolean).length - 1,
      seconds: round((performance.now() - started) / 1000),
      rssGrowthMiB: round(peak - before),
    }
  } finally {
    clearInterval(sampler)
  }
}

const { server, scratch, client, stop } = await startBenchServer({
  label: 'activity',
  port: Number(process.env.BENCH_PORT ?? 3318),
  env: { RATE_LIMIT_FACTOR: '100000' },
})
let ok = false
try {
  const owner = await seedTrialOwnerWithCard(client, {
    label: 'activity',
    password: PASSWORD,
    passes: 1000,
    stampsRequired: 10,
  })
  await seedEvents(client, owner.userId, owner.cardId)
  const cookie = await signIn(server.baseUrl, owner.email, PASSWORD)
  const page = (query: string) => ({
    url: `${server.baseUrl}/account/activity${query}`,
    headers: { cookie },
    connections: 2,
  })
  const first = await fetch(page('').url, { headers: { cookie } })
  if (first.status !== 200) throw new Error(`/account/activity answered ${first.status}`)
  await first.text()
  await load({ ...page(''), duration: 3 }) // warm-up
  const results = [
    summarize('activity, newest 50', await load({ ...page(''), duration: 10 })),
    summarize('activity, at no location', await load({ ...page('?location=none'), duration: 10 })),
    summarize('activity, by the owner', await load({ ...page('?person=owner'), duration: 10 })),
  ]
  console.table(results)
  const csv = await measureCsv(server.baseUrl, cookie, server.child.pid!)
  const figures = {
    database: scratch ? 'PostgreSQL server' : 'embedded',
    cores: os.availableParallelism(),
    events: EVENTS_PER_CARD * 2,
    firstPageP99Ms: results[0]!.p99Ms,
    noLocationP99Ms: results[1]!.p99Ms,
    byOwnerP99Ms: results[2]!.p99Ms,
    csvRows: csv.rows,
    csvSeconds: csv.seconds,
    csvRssGrowthMiB: csv.rssGrowthMiB,
  }
  console.table(figures)
  ok = results.every((result) => result.failures === 0) && csv.rows === EVENTS_PER_CARD * 2
  console.log(`activity (every answer a success, every event exported): ${ok ? 'met' : 'NOT met'}`)
} finally {
  await stop()
}
process.exit(ok ? 0 : 1)
