/**
 * The CSV exports at scale (issue 18: the 1,000,000-row export with the server's memory growth under 50 MB):
 * `measureExport` downloads one export from a running server while sampling the server process's RSS, for
 * `npm run bench:insights` (scripts/bench/insights.ts), which measures stamps.csv for a fast client and for a slow one
 * (reading 512 KB/s of gzip, slower than the server writes: the server must wait for it rather than hold the file).
 */
import http from 'node:http'
import zlib from 'node:zlib'
import { rssMiB } from './lib.ts'

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
