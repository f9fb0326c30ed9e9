import { type ServerResponse } from 'node:http'
import { type AppLoadContext, type ServerBuild } from '@remix-run/node'
import { appleWalletUrlNotice, getAppleWalletConfig } from '#app/server/apple-wallet-config.server.ts'
import { openAndMigrate } from '#app/server/database-lifecycle.server.ts'
import { isDatabaseUnavailable, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE } from '#app/server/database-outage.server.ts'
import { isDatabaseHealthy } from '#app/server/db.server.ts'
import { getEnv, type Env } from '#app/server/env.server.ts'
import { getGoogleWalletConfig } from '#app/server/google-wallet-config.server.ts'
import { queueDepths } from '#app/server/job-queue.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { beyondLoopbackWarning } from '#app/server/loopback.server.ts'
import { startMailWorker } from '#app/server/mail.server.ts'
import { metricsHandler, requestMetrics } from '#app/server/metrics.server.ts'
import { runWithRequestFigures } from '#app/server/request-context.server.ts'
import { requestGuards } from '#app/server/request-guards.server.ts'
import { routeLabeller } from '#app/server/route-label.server.ts'
import { discardUnreadBodies } from '#app/server/unread-body.server.ts'
import { ensureDemoAccount } from '#app/services/accounts/demo-account.server.ts'
import { checkStripePrices } from '#app/services/billing/stripe-prices.server.ts'
import { getVapidKeys } from '#app/services/push/vapid.server.ts'
import { startJobs } from './jobs.server.ts'
import { pageCaches } from './page-caches.server.ts'
import { closeAllPassStreams, passLiveStream } from './pass-live-stream.server.ts'
import type express from 'express'

/*
 * What the HTTP shell (server.ts) needs from the app, exported by the server build (entry.server.tsx re-exports
 * `serverHooks`): server.ts imports nothing from app/ or models/, so every module is loaded once, by the build
 * (docs/decisions/001-process-and-module-graph.md).
 */

export type { Env }

/** What start() opened and started; stop() ends it in order, the database last. */
export type Started = { description: string; stop: () => Promise<void> }

/**
 * The database (opened and migrated), the Web Push keys, the demo account outside production, the mail worker and
 * the job queue: what the server process runs beside answering requests.
 */
async function start(env: Env): Promise<Started> {
  const { database, applied } = await openAndMigrate(env, { role: 'server' }, logger)
  if (applied.length) logger.info({ applied }, 'migrations applied')
  // Paying by card: a missing or wrong price, or a refused key, stops the start with one line; Stripe out of reach
  // does not (the prices are read again when an owner pays), or its outage would keep every instance from starting.
  const prices = await checkStripePrices()
  if (!prices.ok && !prices.unreachable) {
    await database.close().catch(() => {})
    throw new Error(`Invalid configuration: ${prices.line}`)
  }
  if (!prices.ok) logger.warn(`paying by card: the prices could not be checked at start (${prices.line})`)
  // The Web Push key pair is made (once, stored) now, not by the first pass page that needs it: no GET writes.
  await getVapidKeys()
  if (!env.isProduction) {
    const demo = await ensureDemoAccount()
    if (demo) {
      // On stdout, not in the JSON log: a newcomer reads it in the terminal that started the app.
      // eslint-disable-next-line no-console
      console.log(
        `\n  Demo account created — sign in at ${env.APP_URL}/login\n` +
          `  e-mail: ${demo.email}\n  password: ${demo.password}\n` +
          `  (its staff member, for the counter at /staff: ${demo.staffEmail}, same password)\n`,
      )
    }
  }
  const appleUrl = appleWalletUrlNotice(env)
  if (appleUrl?.level === 'warning') logger.warn(appleUrl.message)
  else if (appleUrl) logger.info(appleUrl.message)
  const stopMailWorker = startMailWorker()
  const jobs = await startJobs(env)
  return {
    description: database.description,
    stop: async () => {
      stopMailWorker()
      await jobs.stop()
      await database.close()
    },
  }
}

/**
 * One wrapper of writeHead for two rules:
 * - a failure that was the database being out of reach is a 503 with Retry-After, not a 500
 *   (database-outage.server.ts; handleError in entry.server.tsx marks the load context server.ts keeps in
 *   `res.locals.loadContext`);
 * - Server-Timing: how many SQL statements the answer took (see request-context.server.ts).
 */
const requestFiguresAndOutage: express.RequestHandler = (_req, res, next) =>
  runWithRequestFigures((figures) => {
    const raw = res as ServerResponse
    const writeHead = raw.writeHead
    raw.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      if (!this.headersSent) {
        const context = res.locals.loadContext as AppLoadContext | undefined
        const status = typeof args[0] === 'number' ? args[0] : this.statusCode
        if (status >= 500 && context?.databaseUnavailable) {
          args[0] = 503
          this.statusCode = 503
          this.setHeader('Retry-After', String(RETRY_AFTER_SECONDS))
        }
        this.setHeader('Server-Timing', `db;desc="${figures.queries} queries"`)
      }
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args)
    } as ServerResponse['writeHead']
    next()
  })

/** The client address as Express sees it (honouring TRUST_PROXY), for rate limits; any incoming copy is replaced. */
const clientAddressHeader: express.RequestHandler = (req, _res, next) => {
  req.headers['x-stampwise-client-ip'] = req.ip ?? 'unknown'
  next()
}

/** Errors outside Remix (a page cache asking the database for a version, say): the database out of reach is a 503. */
const databaseOutageHandler: express.ErrorRequestHandler = (error, req, res, next) => {
  if (!isDatabaseUnavailable(error) || res.headersSent) return next(error)
  req.log?.warn({ err: error }, 'database unavailable')
  res
    .status(503)
    .set('Retry-After', String(RETRY_AFTER_SECONDS))
    .set('Cache-Control', 'no-store')
    .type('text/plain')
    .send(UNAVAILABLE_MESSAGE)
}

export const serverHooks = {
  /**
   * The validated settings; throws `Invalid configuration: …` when they are not, or a line naming the Apple Wallet
   * setting that is wrong (a certificate that does not match its key, say): checked before anything starts.
   */
  getEnv: () => {
    const env = getEnv()
    try {
      getAppleWalletConfig()
      getGoogleWalletConfig()
    } catch (error) {
      throw new Error(`Invalid configuration: ${(error as Error).message}`)
    }
    return env
  },
  logger,
  start,
  /** For /healthz: whether the database runs a query within 2 s. */
  isDatabaseHealthy: () => isDatabaseHealthy(),
  /** Counts and times every answer, labelled by the pattern of the route it matched in `getRoutes()`. */
  requestMetrics: (getRoutes: () => ServerBuild['routes'] | undefined) => requestMetrics(routeLabeller(getRoutes)),
  /** GET /metrics (Prometheus), behind METRICS_TOKEN. */
  metricsHandler: (env: Env) =>
    metricsHandler(env.METRICS_TOKEN, { queueDepths, databaseHealthy: () => isDatabaseHealthy() }),
  /**
   * Mounted in this order after the static files, before anything reads a body: the discard of a body's unread rest
   * after its answer, request figures with the 503 of an outage, the refusal of cross-site posts, oversized bodies
   * and forms of too many entries, the client address for rate limits.
   */
  requestHandlers: (env: Env): express.RequestHandler[] => [
    discardUnreadBodies,
    requestFiguresAndOutage,
    ...requestGuards(env),
    clientAddressHeader,
  ],
  /** Render caches in front of Remix (outside development): public pages, /account, /p/{passId}. */
  pageCaches,
  /** GET /p/{passId}/live, the open pass's event stream: mounted before compression (pass-live-stream.server.ts). */
  passLiveStream,
  /** At shutdown, before the server closes: the open pass streams would hold it open. */
  closeLiveStreams: closeAllPassStreams,
  databaseOutageHandler,
  beyondLoopbackWarning,
}

export type ServerHooks = typeof serverHooks
