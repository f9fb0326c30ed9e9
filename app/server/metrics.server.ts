import crypto from 'node:crypto'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type express from 'express'

/*
 * GET /metrics in Prometheus's text format (issue #8): requests and their latency by route, push deliveries by
 * outcome, the job queues' depth and whether the database answers, plus Node's own process figures. Each process
 * keeps its own figures; Prometheus scrapes every container.
 * Requests are labelled by their route's pattern (route-label.server.ts).
 */

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

function createMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  return {
    registry,
    requests: new Counter({
      name: 'stampwise_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'stampwise_http_request_duration_seconds',
      help: 'Time from a request arriving to the last byte of its answer, by method and route pattern.',
      labelNames: ['method', 'route'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'stampwise_push_deliveries_total',
      help: 'Push requests whose outcome was stored, by channel (web: Web Push, apple: APNs for Apple Wallet) and outcome: sent, failed, gone (the subscription or registration was deleted) or retry.',
      labelNames: ['channel', 'outcome'] as const,
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'stampwise_job_queue_depth',
      help: 'Jobs waiting in each queue of this process (created or waiting for a retry), read at the scrape.',
      labelNames: ['queue'] as const,
      registers: [registry],
    }),
    databaseUp: new Gauge({
      name: 'stampwise_database_up',
      help: '1 when the database answered a probe at the scrape, else 0.',
      registers: [registry],
    }),
  }
}

// One set per process, kept on globalThis as the job queue is: a delivery counted by a copy of this module loaded after
// an edit (development) or by a test beside the build must reach the registry /metrics reads.
const METRICS = Symbol.for('stampwise.metrics')
const metrics = ((globalThis as { [METRICS]?: ReturnType<typeof createMetrics> })[METRICS] ??= createMetrics())

export type DeliveryOutcome = 'sent' | 'failed' | 'gone' | 'retry'
/** Where a push went: Web Push to a browser, or APNs to an Apple Wallet device (Google Wallet later). */
export type DeliveryChannelLabel = 'web' | 'apple' | 'google'

/** Counts stored outcomes of push requests on one channel. */
export function countDeliveries(outcome: DeliveryOutcome, channel: DeliveryChannelLabel, count = 1) {
  if (count > 0) metrics.deliveries.inc({ channel, outcome }, count)
}

/** Counts and times every answer, labelled by `label(pathname)`; static files served by express.static included. */
export function requestMetrics(label: (pathname: string) => string): express.RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint()
    res.once('finish', () => {
      const method = METHODS.has(req.method) ? req.method : 'OTHER'
      const route = (res.locals.metricsRoute as string | undefined) ?? label(req.path)
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      metrics.requests.inc({ method, route, status: String(res.statusCode) })
      metrics.latency.observe({ method, route }, seconds)
    })
    next()
  }
}

type Probes = {
  queueDepths: () => Promise<Record<string, number> | null>
  databaseHealthy: () => Promise<boolean>
}

/**
 * GET /metrics. Without METRICS_TOKEN the address does not exist (404): figures about a business are not public.
 * With it, the scraper sends `Authorization: Bearer <token>`; anything else is a 401.
 */
export function metricsHandler(token: string | undefined, probes: Probes): express.RequestHandler {
  const expected = token ? crypto.createHash('sha256').update(token).digest() : null
  return async (req, res) => {
    res.set('Cache-Control', 'no-store')
    if (!expected) {
      res.status(404).type('text/plain').send('Not found: set METRICS_TOKEN to turn on /metrics.\n')
      return
    }
    const given = /^Bearer (.+)$/i.exec(req.get('authorization') ?? '')?.[1]?.trim()
    // Compared as hashes of equal length, in constant time: the answer's timing tells nothing about the token.
    if (!given || !crypto.timingSafeEqual(crypto.createHash('sha256').update(given).digest(), expected)) {
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer realm="metrics"')
        .type('text/plain')
        .send('Unauthorized: send the METRICS_TOKEN as "Authorization: Bearer <token>".\n')
      return
    }
    const [depths, healthy] = await Promise.all([
      probes.queueDepths().catch(() => null),
      probes.databaseHealthy().catch(() => false),
    ])
    metrics.queueDepth.reset()
    for (const [queue, depth] of Object.entries(depths ?? {})) metrics.queueDepth.set({ queue }, depth)
    metrics.databaseUp.set(healthy ? 1 : 0)
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics())
  }
}
