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
import type { Env, ServerHooks } from '#app/main/server-hooks.server.ts'

/*
 * The HTTP server: security headers, compression, request logs, static assets, the health check, the Remix
 * handler and graceful shutdown. Nothing about the product lives here: what it needs from the app (start-up, jobs,
 * page caches, request rules) is `serverHooks`, exported by the server build, so every module of the app is loaded
 * once, by the build (docs/decisions/001-process-and-module-graph.md). Only types are imported from app/.
 */

// Run from source (tsx: development and tests) or compiled into the build folder (`npm run serve` runs
// build/server.js on plain Node, scripts/build-server.ts): both find the same build.
const HERE = path.dirname(fileURLToPath(import.meta.url))
const BUILD = path.basename(HERE) === 'build' ? HERE : path.join(HERE, 'build')
const CLIENT_BUILD = path.join(BUILD, 'client')
const SERVER_BUILD = path.join(BUILD, 'server/index.js')

type BuildSource = ServerBuild | (() => Promise<ServerBuild>)

declare module '@remix-run/node' {
  interface AppLoadContext {
    cspNonce: string
    /** From the env createApp was given, so a test can run one app in production mode. */
    isProduction: boolean
    /**
     * Set by handleError (entry.server.tsx) when a loader or action could not reach the database: the answer is a
     * 503.
     */
    databaseUnavailable?: boolean
    /**
     * Resolves once the client's connection has taken what was written to it (or has closed). Remix writes a
     * streamed body without waiting for drain, so a body that reads from the database (the CSV exports) awaits this
     * before reading more: a slow client must not make the whole file pile up in the process.
     */
    clientDrained?: () => Promise<void>
  }
}

/**
 * The socket, not the response: compression replaces the response's `on('drain')` with its own stream's, and the
 * socket is where the bytes wait for the client.
 */
function clientDrained(res: ServerResponse): Promise<void> {
  const socket = res.socket
  if (!socket || socket.destroyed || !socket.writableNeedDrain) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done)
      socket.off('close', done)
      resolve()
    }
    socket.on('drain', done)
    socket.on('close', done)
  })
}

/**
 * Where a form may leave the app for: paying by card answers 'Pay by card' and 'Manage billing' with a 303 to Stripe's
 * hosted checkout and billing portal, and browsers hold a form's redirects to CSP's form-action too (without
 * JavaScript the owner would stay on a blocked page). Stripe's own pages when the API is Stripe's; any other API
 * origin (the test peer) serves its stand-in pages itself.
 */
export function stripeFormOrigins(env: Pick<Env, 'STRIPE_SECRET_KEY' | 'STRIPE_API_ORIGIN'>): string[] {
  if (!env.STRIPE_SECRET_KEY) return []
  const api = new URL(env.STRIPE_API_ORIGIN).origin
  return api === 'https://api.stripe.com' ? ['https://checkout.stripe.com', 'https://billing.stripe.com'] : [api]
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
        'script-src': [
          "'self'",
          "'wasm-unsafe-eval'",
          (_req, res) => `'nonce-${(res as express.Response).locals.cspNonce}'`,
        ],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:', 'blob:'],
        'font-src': ["'self'"],
        'connect-src': ["'self'", ...(sentryOrigin ? [sentryOrigin] : []), ...(dev ? ['ws:'] : [])],
        'worker-src': ["'self'", 'blob:'],
        'manifest-src': ["'self'"],
        'form-action': ["'self'", ...stripeFormOrigins(env)],
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

/** The hooks a server build exports (app/entry.server.tsx re-exports them from app/main/server-hooks.server.ts). */
export function serverHooksOf(build: ServerBuild): ServerHooks {
  const hooks = (build.entry.module as { serverHooks?: ServerHooks }).serverHooks
  if (!hooks) throw new Error('The server build exports no serverHooks (app/entry.server.tsx)')
  return hooks
}

/**
 * The Express app around a Remix build (or, in development, a function that loads it through Vite, with the hooks
 * of a build loaded once at start).
 */
export function createApp({
  build,
  hooks = typeof build === 'function' ? undefined : serverHooksOf(build),
  env = hooks?.getEnv(),
  vite,
}: {
  build: BuildSource
  hooks?: ServerHooks
  env?: Env
  vite?: { middlewares: express.RequestHandler }
}): Express {
  if (!hooks || !env) throw new Error('createApp needs the server hooks when the build is loaded per request')
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
  // The open pass's event stream, first: thousands stay open at once, so each must hold a socket and little else
  // (no metrics timer, security headers for a document or compression buffer, which would hold its events back).
  app.use(hooks.passLiveStream)
  app.use(hooks.requestMetrics(() => (typeof serverBuild === 'function' ? devRoutes : serverBuild.routes)))
  app.get(
    '/metrics',
    (_req, res, next) => {
      res.locals.metricsRoute = '/metrics'
      next()
    },
    hooks.metricsHandler(env),
  )

  // Answered before logging and headers: load balancers call it every few seconds.
  app.get('/healthz', async (_req, res) => {
    res.locals.metricsRoute = '/healthz'
    const healthy = await hooks.isDatabaseHealthy()
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
      logger: hooks.logger,
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

  // The unread rest of a body thrown away after its answer; Server-Timing and the 503 of a database outage (which
  // reads res.locals.loadContext, set below); cross-site posts, oversized bodies and forms of too many entries
  // refused before anything reads a body; the client address for rate limits.
  app.use(hooks.requestHandlers(env))

  const mode = env.NODE_ENV === 'production' ? 'production' : 'development'
  const loadContext = { isProduction: env.NODE_ENV === 'production' }
  if (typeof build !== 'function') app.use(hooks.pageCaches({ build, mode, loadContext }))
  // A build object, not a function, outside development: Remix re-derives its routes from a function on every
  // request (for hot reloading), which costs more than rendering a page.
  app.all(
    '*',
    createRequestHandler({
      build,
      mode,
      getLoadContext: (_req: express.Request, res: express.Response) => {
        const context: AppLoadContext = {
          ...loadContext,
          cspNonce: res.locals.cspNonce as string,
          clientDrained: () => clientDrained(res),
        }
        res.locals.loadContext = context
        return context
      },
    }) as express.RequestHandler,
  )
  app.use(hooks.databaseOutageHandler)
  return app
}

/**
 * The server build: in production the bundle `npm run build` wrote; in development Vite's, loaded once here for the
 * hooks and again per request (after an edit, Vite gives the routes' new code).
 */
async function loadBuild(dev: boolean) {
  if (!dev) {
    const build = (await import(pathToFileURL(SERVER_BUILD).href)) as ServerBuild
    return { build, hooks: serverHooksOf(build), vite: undefined }
  }
  const { createServer } = await import('vite')
  const vite = await createServer({ server: { middlewareMode: true } })
  const load = () => vite.ssrLoadModule('virtual:remix/server-build') as Promise<ServerBuild>
  try {
    return { build: load, hooks: serverHooksOf(await load()), vite }
  } catch (error) {
    await vite.close()
    throw error
  }
}

async function main() {
  const dev = process.argv.includes('--dev')
  const started = Date.now()
  // The build is loaded first: it opens nothing (models bind to a Sequelize instance that connects on first query).
  // Its models read the settings when loaded, so an invalid setting stops the process here, with the same message.
  const { build: loaded, hooks, vite } = await loadBuild(dev)
  let env: Env
  try {
    env = hooks.getEnv()
  } catch (error) {
    console.error((error as Error).message)
    await vite?.close()
    process.exit(1)
  }
  const { logger } = hooks
  // Loaded only when configured: the SDK takes most of a second to import.
  const Sentry = env.SENTRY_DSN ? await import('@sentry/remix') : undefined
  Sentry?.init({ dsn: env.SENTRY_DSN, environment: env.NODE_ENV, tracesSampleRate: 1 })

  const running = await hooks.start(env)
  const build = Sentry ? Sentry.instrumentBuild(loaded, { instrumentTracing: true }) : loaded
  const app = createApp({ build, hooks, env, vite })
  const listening = () => {
    // The port it really listens on: with PORT=0 the system chose it (tests start several servers that way, free of
    // races for a port).
    const { port } = server.address() as AddressInfo
    logger.info(
      { port, database: running.description, startupMs: Date.now() - started },
      `Stampwise is listening on ${env.APP_URL}`,
    )
    const warning = hooks.beyondLoopbackWarning((server.address() as AddressInfo).address, env)
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
    // Open pass pages hold a stream each: ended now, their pages reconnect (to another instance, or this one again).
    hooks.closeLiveStreams()
    // Stop accepting, let requests in flight finish, then stop the jobs and release the database.
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeIdleConnections()
    })
    await running.stop()
    await vite?.close()
    await Sentry?.close(2_000)
  })
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  })
}
