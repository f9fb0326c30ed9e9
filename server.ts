import crypto from 'node:crypto'
import { type Server, type ServerResponse } from 'node:http'
import { type AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createRequestHandler } from '@remix-run/express'
import { type AppLoadContext, type ServerBuild } from '@remix-run/node'
import closeWithGrace from 'close-with-grace'
import compression from 'compression'
import express, { type Express } from 'express'
import helmet from 'helmet'
import { pinoHttp } from 'pino-http'
import { isDatabaseUnavailable, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE } from '#app/server/database-outage.server.ts'
import { isDatabaseHealthy } from '#app/server/db.server.ts'
import { ensureDemoAccount } from '#app/services/accounts/demo-account.server.ts'
import { openAndMigrate } from '#app/server/database-lifecycle.server.ts'
import { getEnv, type Env } from '#app/server/env.server.ts'
import { logger } from '#app/server/logger.server.ts'
import { beyondLoopbackWarning } from '#app/server/loopback.server.ts'
import { metricsHandler, requestMetrics } from '#app/server/metrics.server.ts'
import { routeLabeller } from '#app/server/route-label.server.ts'
import { startMailWorker } from '#app/server/mail.server.ts'
import { getVapidKeys } from '#app/services/push/vapid.server.ts'
import { publicPageCache } from '#app/server/public-page-cache.server.ts'
import { requestGuards } from '#app/server/request-guards.server.ts'
import { runWithRequestFigures } from '#app/server/request-context.server.ts'
import { versionedPageCache } from '#app/server/versioned-page-cache.server.ts'

/*
 * The HTTP server: security headers, compression, request logs, static assets, the health check, the Remix
 * handler and graceful shutdown. Nothing about the product lives here.
 */

const ROOT = path.dirname(fileURLToPath(import.meta.url))
const CLIENT_BUILD = path.join(ROOT, 'build/client')
const SERVER_BUILD = path.join(ROOT, 'build/server/index.js')

/** Public pages that look the same to every anonymous visitor (see public-page-cache.server.ts). */
/** A function's first answer, kept (for lazy imports). */
function once<T>(load: () => T): () => T {
  let value: { result: T } | undefined
  return () => (value ??= { result: load() }).result
}

// A holder's pass: /p/{uuid} (the page itself, not its manifest, icons or logo).
const PASS_PAGE = /^\/p\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const isPublicPage = (pathname: string) =>
  ['/', '/about', '/terms', '/privacy-policy', '/blog'].includes(pathname) || /^\/blog\/[\w-]+$/.test(pathname)

type BuildSource = ServerBuild | (() => Promise<ServerBuild>)

declare module '@remix-run/node' {
  interface AppLoadContext {
    cspNonce: string
    /** From the env createApp was given, so a test can run one app in production mode. */
    isProduction: boolean
    /** Set by handleError (entry.server.tsx) when a loader or action could not reach the database: the answer is a 503. */
    databaseUnavailable?: boolean
  }
}

function securityHeaders(env: Env, dev: boolean): express.RequestHandler {
  const https = env.APP_URL.startsWith('https://')
  const sentryOrigin = env.SENTRY_DSN ? new URL(env.SENTRY_DSN).origin : null
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        // Remix's inline scripts carry the per-request nonce; nothing else inline may run.
        // 'wasm-unsafe-eval': the scan page's QR reader (barcode-detector's zxing-wasm, served from /assets) compiles
        // WebAssembly, which CSP blocks without it; it allows no JavaScript eval.
        'script-src': ["'self'", "'wasm-unsafe-eval'", (_req, res) => `'nonce-${(res as express.Response).locals.cspNonce}'`],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:', 'blob:'],
        'font-src': ["'self'"],
        'connect-src': ["'self'", ...(sentryOrigin ? [sentryOrigin] : []), ...(dev ? ['ws:'] : [])],
        'worker-src': ["'self'", 'blob:'],
        'manifest-src': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        'base-uri': ["'self'"],
        'object-src': ["'none'"],
        ...(https ? { 'upgrade-insecure-requests': [] } : {}),
      },
    },
    // HSTS only where the app is served over TLS; on a private http:// address it would lock browsers out.
    strictTransportSecurity: https ? { maxAge: 63072000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'same-origin' },
    // The same rule as frame-ancestors 'none', for browsers that predate CSP level 2.
    xFrameOptions: { action: 'deny' },
  })
}

/** The most of an unread request body thrown away to keep its connection; past it the connection is closed. */
const UNREAD_BODY_LIMIT = 64 * 1024 * 1024

/**
 * An answer sent before the request's body was read to its end (an action that ignores the body, a JSON call's
 * 413 on the declared length, a 405) leaves the rest of the body on a keep-alive connection: Node neither reads
 * it nor closes the connection, so the client's next request on it waits for the keep-alive timeout and then
 * fails with a reset. Once the answer is sent, the rest is read and thrown away.
 */
const discardUnreadBodies: express.RequestHandler = (req, res, next) => {
  res.once('finish', () => {
    if (req.complete || req.destroyed) return
    let discarded = 0
    // Remix's reader of the body (paused, since nobody reads it any more) lets go of it.
    req.removeAllListeners('data')
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length
      if (discarded > UNREAD_BODY_LIMIT) req.socket.destroy()
    })
    req.resume()
  })
  next()
}

/** The Express app around a Remix build (or, in development, a function that loads it through Vite). */
export function createApp({ build, env = getEnv(), vite }: { build: BuildSource; env?: Env; vite?: { middlewares: express.RequestHandler } }): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('trust proxy', env.TRUST_PROXY)

  // In development the build is loaded per request through Vite: the metrics label by the routes last loaded.
  let devRoutes: ServerBuild['routes'] | undefined
  if (typeof build === 'function') {
    const load = build
    build = async () => {
      const loaded = await load()
      devRoutes = loaded.routes
      return loaded
    }
  }
  const serverBuild = build
  app.use(requestMetrics(routeLabeller(() => (typeof serverBuild === 'function' ? devRoutes : serverBuild.routes))))
  const jobs = once(() => import('#app/server/jobs.server.ts'))
  app.get(
    '/metrics',
    (_req, res, next) => {
      res.locals.metricsRoute = '/metrics'
      next()
    },
    metricsHandler(env.METRICS_TOKEN, { queueDepths: async () => (await jobs()).queueDepths(), databaseHealthy: () => isDatabaseHealthy() }),
  )

  // Answered before logging and headers: load balancers call it every few seconds.
  app.get('/healthz', async (_req, res) => {
    res.locals.metricsRoute = '/healthz'
    const healthy = await isDatabaseHealthy()
    res
      .status(healthy ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json({ status: healthy ? 'ok' : 'unavailable', database: healthy ? 'up' : 'down' })
  })

  app.use((_req, res, next) => {
    res.locals.cspNonce = crypto.randomBytes(16).toString('base64')
    next()
  })
  app.use(securityHeaders(env, Boolean(vite)))
  app.use(compression())
  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id']
        const id = typeof incoming === 'string' && /^[\w-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID()
        res.setHeader('X-Request-Id', id)
        return id
      },
      autoLogging: { ignore: (req) => req.url?.startsWith('/assets/') ?? false },
      // A 503 is the database outage's answer (with Retry-After), already logged as a warning where it was noticed.
      customLogLevel: (_req, res, error) =>
        error || (res.statusCode >= 500 && res.statusCode !== 503) ? 'error' : res.statusCode === 503 ? 'warn' : 'info',
      serializers: {
        req: (req) => ({ method: req.method, url: req.url }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    }),
  )

  if (vite) {
    app.use(vite.middlewares)
  } else {
    // Hashed file names never change content: cache them for a year.
    app.use('/assets', express.static(path.join(CLIENT_BUILD, 'assets'), { immutable: true, maxAge: '1y' }))
    const publicFiles = express.static(CLIENT_BUILD, { maxAge: '1h' })
    app.use((req, res, next) => {
      res.locals.metricsRoute = 'static'
      publicFiles(req, res, (error?: unknown) => {
        res.locals.metricsRoute = undefined
        next(error)
      })
    })
  }

  // Server-Timing: how many SQL statements the answer took (see request-context.server.ts).
  app.use((req, res, next) =>
    runWithRequestFigures((figures) => {
      const raw = res as ServerResponse
      const writeHead = raw.writeHead
      raw.writeHead = function (this: ServerResponse, ...args: unknown[]) {
        if (!this.headersSent) this.setHeader('Server-Timing', `db;desc="${figures.queries} queries"`)
        return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args)
      } as ServerResponse['writeHead']
      next()
    }),
  )

  // A failure that was the database being out of reach is a 503 with Retry-After, not a 500 (database-outage.server.ts).
  app.use((_req, res, next) => {
    const raw = res as ServerResponse
    const writeHead = raw.writeHead
    raw.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      const context = res.locals.loadContext as AppLoadContext | undefined
      const status = typeof args[0] === 'number' ? args[0] : this.statusCode
      if (status >= 500 && context?.databaseUnavailable && !this.headersSent) {
        args[0] = 503
        this.statusCode = 503
        this.setHeader('Retry-After', String(RETRY_AFTER_SECONDS))
      }
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args)
    } as ServerResponse['writeHead']
    next()
  })

  app.use(discardUnreadBodies)
  // Cross-site posts and oversized bodies are refused here, before anything reads a body.
  app.use(requestGuards(env))

  // The client address as Express sees it (honouring TRUST_PROXY), for rate limits; any incoming copy is replaced.
  app.use((req, _res, next) => {
    req.headers['x-stampwise-client-ip'] = req.ip ?? 'unknown'
    next()
  })

  const mode = env.NODE_ENV === 'production' ? 'production' : 'development'
  const loadContext = { isProduction: env.NODE_ENV === 'production' }
  if (typeof build !== 'function') {
    app.use(publicPageCache({ build, mode, paths: isPublicPage, loadContext }))
    // Models are imported on first use: they bind to the database when loaded, which must wait for the configuration.
    // Each import is kept: a dynamic import() per request would ask the module loader (tsx's hooks thread) every time.
    const accountVersion = once(() => import('#app/services/accounts/account-page-version.server.ts'))
    const passVersion = once(() => import('#models/pass.server.ts'))
    app.use(
      versionedPageCache({
        build,
        mode,
        paths: (pathname) => pathname === '/account',
        version: async (req) => {
          if (!req.headers.cookie?.includes('__session=')) return null
          const { accountPageVersion } = await accountVersion()
          const current = await accountPageVersion(req.headers.cookie)
          return current && { key: `${current.userId} ${req.path}`, version: current.version }
        },
        forwardCookie: true,
        loadContext,
      }),
    )
    app.use(
      versionedPageCache({
        build,
        mode,
        paths: (pathname) => PASS_PAGE.test(pathname),
        version: async (req) => {
          const { getPassPageVersion } = await passVersion()
          const version = await getPassPageVersion(req.path.slice('/p/'.length))
          return version === null ? null : { key: req.path, version }
        },
        forwardCookie: false,
        loadContext,
      }),
    )
  }
  // A build object, not a function, outside development: Remix re-derives its routes from a function on every
  // request (for hot reloading), which costs more than rendering a page.
  app.all(
    '*',
    createRequestHandler({
      build,
      mode,
      getLoadContext: (_req: express.Request, res: express.Response) => {
        const context: AppLoadContext = { ...loadContext, cspNonce: res.locals.cspNonce as string }
        res.locals.loadContext = context
        return context
      },
    }) as express.RequestHandler,
  )
  // Errors outside Remix (a page cache asking the database for a version, say): the database out of reach is a 503.
  app.use((error: unknown, req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (!isDatabaseUnavailable(error) || res.headersSent) return next(error)
    req.log?.warn({ err: error }, 'database unavailable')
    res.status(503).set('Retry-After', String(RETRY_AFTER_SECONDS)).set('Cache-Control', 'no-store').type('text/plain').send(UNAVAILABLE_MESSAGE)
  })
  return app
}

async function loadBuild(dev: boolean) {
  if (!dev) {
    return { build: (await import(pathToFileURL(SERVER_BUILD).href)) as ServerBuild, vite: undefined }
  }
  const { createServer } = await import('vite')
  const vite = await createServer({ server: { middlewareMode: true } })
  return {
    build: () => vite.ssrLoadModule('virtual:remix/server-build') as Promise<ServerBuild>,
    vite,
  }
}

async function main() {
  let env: Env
  try {
    env = getEnv()
  } catch (error) {
    console.error((error as Error).message)
    process.exit(1)
  }
  const dev = process.argv.includes('--dev')
  // Loaded only when configured: the SDK takes most of a second to import.
  const Sentry = env.SENTRY_DSN ? await import('@sentry/remix') : undefined
  Sentry?.init({ dsn: env.SENTRY_DSN, environment: env.NODE_ENV, tracesSampleRate: 1 })

  const started = Date.now()
  const { database, applied } = await openAndMigrate(env, { role: 'server' }, logger)
  if (applied.length) logger.info({ applied }, 'migrations applied')
  // The Web Push key pair is made (once, stored) now, not by the first pass page that needs it: no GET writes.
  await getVapidKeys()
  if (!env.isProduction) {
    const demo = await ensureDemoAccount()
    if (demo) {
      console.log(`\n  Demo account created — sign in at ${env.APP_URL}/login\n  e-mail: ${demo.email}\n  password: ${demo.password}\n`)
    }
  }

  const stopMailWorker = startMailWorker()
  const { startJobs } = await import('#app/server/jobs.server.ts')
  const jobs = await startJobs(env)
  const { build: loaded, vite } = await loadBuild(dev)
  const build = Sentry ? Sentry.instrumentBuild(loaded, { instrumentTracing: true }) : loaded
  const app = createApp({ build, env, vite })
  const listening = () => {
    logger.info(
      { port: env.PORT, database: database.description, startupMs: Date.now() - started },
      `Stampwise is listening on ${env.APP_URL}`,
    )
    const warning = beyondLoopbackWarning((server.address() as AddressInfo).address, env)
    if (warning) logger.warn(warning)
  }
  const server: Server = env.HOST ? app.listen(env.PORT, env.HOST, listening) : app.listen(env.PORT, listening)

  // While stopping, every answer closes its connection: a kept-alive connection (a load balancer's) would
  // otherwise hold the process until the grace delay runs out.
  let stopping = false
  const answering = new Set<ServerResponse>()
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (stopping) res.setHeader('Connection', 'close')
    answering.add(res)
    res.once('close', () => answering.delete(res))
  })

  closeWithGrace({ delay: 10_000, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error')
    else logger.info({ signal }, 'shutting down')
    stopping = true
    for (const res of answering) if (!res.headersSent) res.setHeader('Connection', 'close')
    // Stop accepting, let requests in flight finish, then release the database.
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeIdleConnections()
    })
    stopMailWorker()
    await jobs.stop()
    await vite?.close()
    await database.close()
    await Sentry?.close(2_000)
  })
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  })
}
