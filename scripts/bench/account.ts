/**
 * Budget of the account issue: GET /account signed in, for an owner with 10 cards (holders and stamps on each),
 * at least 400 requests/s with p99 under 60 ms (autocannon, 10 connections, 10 s, same machine), and the number
 * of SQL statements one /account request runs, which must not grow with the number of cards (compared for owners
 * with 1 and 10 cards).
 *
 * Statements are counted by the app itself (Server-Timing: db;desc="N queries"), for a full render and for an
 * answer from the render cache (app/server/versioned-page-cache.server.ts), which /account uses while nothing on it
 * has changed. The load itself is the steady state: an owner whose data does not change between requests.
 *
 *   npm run build && npm run bench:account            (embedded database)
 *   DATABASE_URL=postgres://... npm run bench:account (PostgreSQL server)
 */
import crypto from 'node:crypto'
import os from 'node:os'
import pg from 'pg'
import { hashPassword } from '#app/services/auth/password.server.ts'
import { databaseClient, load, signIn, startServer, summarize } from './lib.ts'

const PASSWORD = 'Bench.mark1'
const HOLDERS_PER_CARD = 20
const round = (value: number) => Math.round(value * 10) / 10
const loadAverage = () => os.loadavg().map(round).join(' / ')

const SHORT_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const shortCode = () => Array.from(crypto.randomBytes(8), (byte) => SHORT_CODE_ALPHABET[byte % 32]).join('')

/** An owner on a trial with `cards` cards, each with holders and this month's stamps, made in SQL. */
async function seedOwner(client: pg.Client, cards: number, passwordHash: string) {
  const email = `bench-${cards}-${Date.now()}@example.com`
  const { rows } = await client.query<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at) values ($1, $2, now()) returning id`,
    [email, passwordHash],
  )
  const userId = rows[0]!.id
  await client.query(
    `insert into subscriptions (user_id, status, trial_ends_at) values ($1, 'trial', now() + interval '14 days')`,
    [userId],
  )
  for (let index = 0; index < cards; index++) {
    const card = await client.query<{ id: string }>(
      `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
       values ($1, $2, 'active', $3, 'Bench Bakery', 10, 'A free pastry') returning id`,
      [userId, `bench-${crypto.randomBytes(6).toString('hex')}`, `Card ${index + 1}`],
    )
    for (let holder = 0; holder < HOLDERS_PER_CARD; holder++) {
      const pass = await client.query<{ id: string }>(
        `insert into passes (card_id, short_code, stamps) values ($1, $2, 3) returning id`,
        [card.rows[0]!.id, shortCode()],
      )
      await client.query(
        `insert into stamp_events (pass_id, card_id, actor_id, kind, count) values ($1, $2, $3, 'stamp', 3)`,
        [pass.rows[0]!.id, card.rows[0]!.id, userId],
      )
    }
  }
  return email
}

/** The SQL statements an answer took, from its Server-Timing header (db;desc="N queries"). */
async function statementsOf(baseUrl: string, cookie: string) {
  const response = await fetch(`${baseUrl}/account`, { headers: { Cookie: cookie } })
  if (response.status !== 200) throw new Error(`/account answered ${response.status}`)
  await response.text()
  const match = /db;desc="(\d+) queries"/.exec(response.headers.get('Server-Timing') ?? '')
  if (!match) throw new Error('no Server-Timing statement count on /account')
  return Number(match[1])
}

/**
 * Statements of a full render (the owner's data just changed, so the cached render is out of date) and of an
 * answer from the render cache.
 */
async function statements(client: pg.Client, baseUrl: string, email: string, cookie: string) {
  await client.query(`update users set content_version = content_version + 1 where email = $1`, [email])
  const render = await statementsOf(baseUrl, cookie)
  const cached = await statementsOf(baseUrl, cookie)
  return { render, cached }
}

const loadBefore = loadAverage()
const server = await startServer({ port: Number(process.env.BENCH_PORT ?? 3312), env: { RATE_LIMIT_FACTOR: '100000' } })
const client = databaseClient(server.dataDir)
try {
  await client.connect()
  const passwordHash = await hashPassword(PASSWORD)
  const oneCardEmail = await seedOwner(client, 1, passwordHash)
  const tenCardsEmail = await seedOwner(client, 10, passwordHash)
  const oneCard = await signIn(server.baseUrl, oneCardEmail, PASSWORD)
  const tenCards = await signIn(server.baseUrl, tenCardsEmail, PASSWORD)

  const with1Card = await statements(client, server.baseUrl, oneCardEmail, oneCard)
  const with10Cards = await statements(client, server.baseUrl, tenCardsEmail, tenCards)

  const request = { url: `${server.baseUrl}/account`, headers: { cookie: tenCards } }
  await load({ ...request, duration: 3 }) // warm-up
  const result = summarize('GET /account (10 cards), 10 connections', await load(request))
  // For capacity planning: every request a full render (a query string bypasses the render cache).
  const rendered = summarize(
    'GET /account?render (10 cards, no cache), 10 connections',
    await load({ url: `${request.url}?render=1`, headers: request.headers, duration: 5 }),
  )
  const page = await fetch(`${server.baseUrl}/account`, { headers: { Cookie: tenCards } }).then((response) =>
    response.text(),
  )
  const figures = {
    database: process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded',
    cores: os.availableParallelism(),
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadAverage(),
    cardsShown: (page.match(/class="panel account-card"/g) ?? []).length,
    statementsPerRenderWith1Card: with1Card.render,
    statementsPerRenderWith10Cards: with10Cards.render,
    statementsPerCachedAnswer: with10Cards.cached,
    ...result,
    uncachedRequestsPerSecond: rendered.requestsPerSecond,
    uncachedP99Ms: rendered.p99Ms,
  }
  console.table(figures)
  const ok =
    result.requestsPerSecond >= 400 &&
    result.p99Ms < 60 &&
    result.failures === 0 &&
    figures.cardsShown === 10 &&
    with10Cards.render === with1Card.render
  console.log(
    ok
      ? 'account budget (≥ 400 req/s, p99 < 60 ms, statements not growing with cards): met'
      : 'account budget (≥ 400 req/s, p99 < 60 ms, statements not growing with cards): NOT met',
  )
  process.exitCode = ok ? 0 : 1
} finally {
  await client.end()
  await server.stop()
}
