/**
 * Budget of the foundation issue: the landing page serves ≥ 600 requests/s with p99 < 40 ms (autocannon,
 * 10 connections, 10 s, same machine), HTML + CSS < 30 kB gzipped; plus the process's memory after the run
 * and the start-up time on a fresh embedded database.
 *
 *   npm run build && npm run bench:landing            (embedded database)
 *   DATABASE_URL=postgres://... npm run bench:landing (PostgreSQL server)
 */
import { gzipSync } from 'node:zlib'
import { load, rssMiB, startServer, summarize } from './lib.ts'

const server = await startServer({ port: Number(process.env.BENCH_PORT ?? 3310) })
try {
  const html = await (await fetch(`${server.baseUrl}/`)).text()
  const cssHrefs = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!)
  let cssGzip = 0
  for (const href of cssHrefs) cssGzip += gzipSync(await (await fetch(new URL(href, server.baseUrl))).text()).length
  const htmlGzip = gzipSync(html).length

  await load({ url: `${server.baseUrl}/`, duration: 2 }) // warm-up
  const result = summarize('GET /', await load({ url: `${server.baseUrl}/`, headers: { 'accept-encoding': 'gzip' } }))
  const figures = {
    database: process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded',
    startupMsFreshDatabase: server.startupMs,
    ...result,
    rssAfterRunMiB: rssMiB(server.child.pid!),
    htmlGzipBytes: htmlGzip,
    cssGzipBytes: cssGzip,
    htmlPlusCssGzipKB: Math.round(((htmlGzip + cssGzip) / 1024) * 10) / 10,
  }
  console.table(figures)
  const ok =
    result.requestsPerSecond >= 600 && result.p99Ms < 40 && htmlGzip + cssGzip < 30 * 1024 && result.failures === 0
  console.log(ok ? 'landing page budget: met' : 'landing page budget: NOT met')
  process.exitCode = ok ? 0 : 1
} finally {
  await server.stop()
}
