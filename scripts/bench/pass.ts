/**
 * Budget of the cards issue for the holder's pass: GET /p/{passId} at least 700 requests/s with p99 under 40 ms
 * (autocannon, 10 connections, 10 s, same machine), and the page's size: its HTML plus the CSS it links,
 * uncompressed and gzipped. The load is holders at the counter: many passes of one card, each opened repeatedly;
 * answers come from the pass page's render cache (app/server/versioned-page-cache.server.ts) while a pass is unchanged.
 *
 *   npm run build && npm run bench:pass            (embedded database)
 *   DATABASE_URL=postgres://... npm run bench:pass (PostgreSQL server)
 */
import os from 'node:os'
import { gzipSync } from 'node:zlib'
import pg from 'pg'
import { databaseClient, load, startServer, summarize } from './lib.ts'

const PASSES = 50
const round = (value: number) => Math.round(value * 10) / 10
const loadAverage = () => os.loadavg().map(round).join(' / ')

/** An active card of a new owner, made in SQL; its holders join through the page, as a phone would. */
async function seedCard(client: pg.Client) {
  const { rows } = await client.query<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at) values ($1, 'x', now()) returning id`,
    [`bench-pass-${Date.now()}@example.com`],
  )
  const slug = `bench-pass-${Date.now()}`
  await client.query(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward, terms)
     values ($1, $2, 'active', 'Coffee card', 'Bench Bakery', 10, 'A free coffee', 'One stamp per visit') `,
    [rows[0]!.id, slug],
  )
  return slug
}

async function joinCard(baseUrl: string, slug: string) {
  const response = await fetch(`${baseUrl}/c/${slug}`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams(),
  })
  const location = response.headers.get('Location')
  if (response.status !== 303 || !location) throw new Error(`joining answered ${response.status}`)
  return location
}

async function pageSize(baseUrl: string, passPath: string) {
  const html = await fetch(`${baseUrl}${passPath}`).then((response) => response.text())
  const stylesheets = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((match) => match[1]!)
  const css = await Promise.all(
    stylesheets.map((href) => fetch(`${baseUrl}${href}`).then((response) => response.text())),
  )
  const bytes = (text: string) => Buffer.byteLength(text)
  const gzipped = (text: string) => gzipSync(text).byteLength
  return {
    htmlBytes: bytes(html),
    cssBytes: css.reduce((sum, sheet) => sum + bytes(sheet), 0),
    htmlPlusCssBytes: bytes(html) + css.reduce((sum, sheet) => sum + bytes(sheet), 0),
    htmlPlusCssGzippedBytes: gzipped(html) + css.reduce((sum, sheet) => sum + gzipped(sheet), 0),
    stylesheets: stylesheets.join(' '),
  }
}

const loadBefore = loadAverage()
const server = await startServer({ port: Number(process.env.BENCH_PORT ?? 3313), env: { RATE_LIMIT_FACTOR: '100000' } })
const client = databaseClient(server.dataDir)
try {
  await client.connect()
  const slug = await seedCard(client)
  const passPaths: string[] = []
  for (let index = 0; index < PASSES; index++) passPaths.push(await joinCard(server.baseUrl, slug))
  await client.query(`update passes set stamps = 4 where id = $1`, [passPaths[0]!.slice(3)])

  const size = await pageSize(server.baseUrl, passPaths[0]!)
  const requests = passPaths.map((path) => ({ method: 'GET' as const, path }))
  const options = { url: server.baseUrl, requests, headers: { 'accept-encoding': 'gzip' } }
  await load({ ...options, duration: 3 }) // warm-up: the first render of each pass
  const result = summarize(`GET /p/{passId} (${PASSES} passes), 10 connections`, await load(options))
  const figures = {
    database: process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded',
    cores: os.availableParallelism(),
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadAverage(),
    ...result,
    ...size,
  }
  console.table(figures)
  const ok = result.requestsPerSecond >= 700 && result.p99Ms < 40 && result.failures === 0
  console.log(`pass page budget (≥ 700 req/s, p99 < 40 ms): ${ok ? 'met' : 'NOT met'}`)
  console.log(
    `pass page size: HTML ${size.htmlBytes} B + CSS ${size.cssBytes} B = ${size.htmlPlusCssBytes} B uncompressed, ` +
      `${size.htmlPlusCssGzippedBytes} B gzipped (budget 20 000 B)`,
  )
  process.exitCode = ok ? 0 : 1
} finally {
  await client.end()
  await server.stop()
}
