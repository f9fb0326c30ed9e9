import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startJobs } from '#app/main/jobs.server.ts'
import { PUSH_RESUME_QUEUE } from '#app/server/job-queue.server.ts'
import { countDeliveries } from '#app/server/metrics.server.ts'
import { sendOwnerNotification } from '#app/services/push/push-send.server.ts'
import { sql } from '#tests/support/auth-api.ts'
import { createDraft, createPushAudience, waitUntilDone } from '#tests/support/push-audience.ts'
import { startPushEndpoint, type PushEndpoint } from '#tests/support/push-endpoint.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/*
 * GET /metrics (issue #8): off without METRICS_TOKEN, 401 without the right bearer token, and with it the
 * Prometheus text: requests by route pattern and status, latency histograms, push deliveries by channel and outcome
 * (after a real send to the test push service), the job queues' depth and the database probe.
 */

const TOKEN = 'metrics-token-for-tests-0123456789'
let server: Awaited<ReturnType<typeof startTestServer>>
let withoutToken: Awaited<ReturnType<typeof startTestServer>>
let endpoint: PushEndpoint
let jobs: Awaited<ReturnType<typeof startJobs>>

beforeAll(async () => {
  endpoint = await startPushEndpoint()
  jobs = await startJobs()
  server = await startTestServer({ env: { METRICS_TOKEN: TOKEN } })
  withoutToken = await startTestServer()
})

afterAll(async () => {
  await server?.close()
  await withoutToken?.close()
  await jobs?.stop()
  await endpoint?.close()
})

const scrape = async () => {
  const response = await server.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
  expect(response.status).toBe(200)
  // Prometheus's text format, version 0.0.4 (Express adds the charset).
  expect(response.headers.get('content-type')).toMatch(/^text\/plain;.*\bversion=0\.0\.4\b/)
  return response.text()
}

/** The value of one series (`name{labels}`), 0 when it is not there yet. */
function value(text: string, series: string) {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : 0
}

describe('access', () => {
  test('without METRICS_TOKEN the address does not exist', async () => {
    const response = await withoutToken.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(response.status).toBe(404)
    expect(await response.text()).toMatch(/METRICS_TOKEN/)
  })

  test.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer ${TOKEN}x`],
    ['the token without "Bearer"', TOKEN],
    ['an empty bearer', 'Bearer '],
  ])('%s: 401 with a message', async (_name, authorization) => {
    const response = await server.fetch('/metrics', { headers: authorization ? { authorization } : {} })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = await response.text()
    expect(body).toMatch(/METRICS_TOKEN/)
    expect(body).not.toContain(TOKEN)
  })
})

describe('figures', () => {
  test('requests by method, route pattern and status, with latency histograms', async () => {
    const before = await scrape()
    const pass = '/p/00000000-0000-4000-8000-000000000000'
    // Each answer read to its end: an answer is counted when its last byte is written.
    const status = async (path: string, init?: RequestInit) => {
      const response = await server.fetch(path, init)
      await response.arrayBuffer()
      return response.status
    }
    for (let i = 0; i < 3; i++) expect(await status(pass)).toBe(404)
    expect(await status('/')).toBe(200)
    expect(await status('/healthz')).toBe(200)
    expect(await status('/login', { method: 'POST', body: new URLSearchParams({ email: 'x' }) })).toBe(400)

    const after = await scrape()
    const requests = (labels: string) =>
      value(after, `stampwise_http_requests_total{${labels}}`) -
      value(before, `stampwise_http_requests_total{${labels}}`)
    // The pattern, never the address: one series for every pass.
    expect(requests('method="GET",route="/p/:passId",status="404"')).toBe(3)
    expect(after).not.toContain('00000000-0000-4000-8000-000000000000')
    expect(requests('method="GET",route="/",status="200"')).toBe(1)
    expect(requests('method="GET",route="/healthz",status="200"')).toBe(1)
    expect(requests('method="POST",route="/login",status="400"')).toBe(1)
    // Latency: cumulative buckets, a sum and a count per route.
    const count = (text: string) =>
      value(text, 'stampwise_http_request_duration_seconds_count{method="GET",route="/p/:passId"}')
    expect(count(after) - count(before)).toBe(3)
    expect(after).toMatch(
      /^stampwise_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/p\/:passId"\} \d+$/m,
    )
    expect(after).toMatch(/^stampwise_database_up 1$/m)
    // Node's own process figures.
    expect(after).toMatch(/^process_cpu_seconds_total \d/m)
  })

  test('push deliveries by channel and outcome after a real send, and the job queues', async () => {
    const before = await scrape()
    const { owner, cardId } = await createPushAudience(endpoint, ['ok', 'ok', 'gone'])
    const notificationId = await createDraft(owner.id, cardId)
    expect((await sendOwnerNotification({ ownerId: owner.id, cardId, notificationId })).ok).toBe(true)
    await waitUntilDone(notificationId, 30_000)
    const after = await scrape()
    const outcome = (name: string) =>
      value(after, `stampwise_push_deliveries_total{channel="web",outcome="${name}"}`) -
      value(before, `stampwise_push_deliveries_total{channel="web",outcome="${name}"}`)
    expect(outcome('sent')).toBe(2)
    expect(outcome('gone')).toBe(1)
    expect(outcome('failed')).toBe(0)
    // The APNs sender counts on its own channel, apart from web push.
    const apple = (text: string) => value(text, 'stampwise_push_deliveries_total{channel="apple",outcome="sent"}')
    countDeliveries('sent', 'apple')
    expect(apple(await scrape()) - apple(after)).toBe(1)

    // A job waiting an hour is in its queue's depth. The send's own resume job may finish meanwhile, so the figure
    // is held against the queue as the database had it just before and just after the scrape.
    const boss = (
      globalThis as Record<symbol, { send: (name: string, data: object, options: object) => Promise<string | null> }>
    )[Symbol.for('stampwise.jobs')]!
    expect(
      await boss.send(PUSH_RESUME_QUEUE, {}, { startAfter: 3600, singletonKey: `metrics-${Date.now()}` }),
    ).toBeTruthy()
    const waiting = async () =>
      Number(
        (
          await sql<{ count: string }>(
            `select count(*) from pgboss.job where name = :queue and state in ('created', 'retry')`,
            { queue: PUSH_RESUME_QUEUE },
          )
        )[0]!.count,
      )
    const [first, later, last] = [await waiting(), await scrape(), await waiting()]
    const depth = value(later, `stampwise_job_queue_depth{queue="${PUSH_RESUME_QUEUE}"}`)
    expect(Math.min(first, last)).toBeGreaterThanOrEqual(1)
    expect(depth).toBeGreaterThanOrEqual(Math.min(first, last))
    expect(depth).toBeLessThanOrEqual(Math.max(first, last))
    expect(later).toMatch(/^stampwise_job_queue_depth\{queue="push-message"\} \d+$/m)
  })
})
