import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, test } from 'vitest'
import { embeddedSocketPath, readLockHolder, startEmbeddedDatabase } from '#app/server/embedded-db.server.ts'
import { DEMO_EMAIL, DEMO_PASSWORD, DEMO_STAFF_EMAIL } from '#app/services/accounts/demo-account.server.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { makeAppleCerts, makeOtherKey } from '#tests/support/apple-certs.ts'
import { killChildren, runTs, runTsToEnd } from '#tests/support/child-process.ts'
import { TEST_GOOGLE_ISSUER_ID } from '#tests/support/google-service-account.ts'
import { createBlankDataDir, createDataDir } from '#tests/support/scratch-databases.ts'
import { startStripePeer } from '#tests/support/stripe-peer.ts'

/*
 * The real server process (`node --import tsx server.ts`, the built Remix app) on a temp DATA_DIR and a free port:
 * configuration errors, start-up, the demo account, and a graceful stop that lets a slow request finish.
 */

afterEach(killChildren)

async function freePort() {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

function startServer(dataDir: string, port: number, env: Record<string, string> = {}) {
  return runTs('server.ts', { env: { DATA_DIR: dataDir, PORT: String(port), ...env } })
}

/** Polls `url` until it answers 200; rejects when the process exits first or time runs out. */
async function waitFor200(url: string, server: ReturnType<typeof startServer>, withinMs = 60_000) {
  let exited = false
  void server.exited.then(() => (exited = true))
  const deadline = Date.now() + withinMs
  while (Date.now() < deadline && !exited) {
    const status = await fetch(url).then(
      (response) => response.body?.cancel().then(() => response.status),
      () => 0,
    )
    if (status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${url} did not answer 200 (exited: ${exited}); stderr: ${server.stderr().slice(-2000)}`)
}

/** Apple Wallet's settings as a test CA made them: every one right, until a case spoils one. */
const appleSettings = () => makeAppleCerts().env()

/** Google Wallet on with a user's credentials (what `gcloud auth application-default login` writes) as its key. */
const googleWithUserCredentials = {
  GOOGLE_WALLET_ISSUER_ID: TEST_GOOGLE_ISSUER_ID,
  GOOGLE_WALLET_SERVICE_ACCOUNT: JSON.stringify({
    type: 'authorized_user',
    client_id: '100000000000-abc.apps.googleusercontent.com',
    client_secret: 'not-a-secret',
    refresh_token: '1//not-a-token',
  }),
}

// Its databases are its own (a data folder, a fresh server database), whatever TEST_DATABASE_URL says: the
// PostgreSQL-server run would repeat the same work and prove nothing more, so it runs in the embedded run only.
describe.skipIf(usingServer())('the server process', () => {
  test.each<[string, Record<string, string>, string?]>([
    ['PORT', { PORT: 'abc' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['SESSION_SECRET', { NODE_ENV: 'production' }],
    // Apple Wallet's settings are checked with the others (docs/product/wallets.md, "When on").
    ['APPLE_TEAM_ID', { ...appleSettings(), APPLE_TEAM_ID: '' }],
    ['APPLE_PASS_KEY', { ...appleSettings(), APPLE_PASS_KEY: makeOtherKey('rsa') }],
    ['APPLE_PASS_CERT', { ...appleSettings(), APPLE_PASS_TYPE_ID: 'pass.com.example.other' }],
    // So are Google Wallet's: a key that is not a service account's is refused by its type, with the type it has.
    [
      'GOOGLE_WALLET_SERVICE_ACCOUNT',
      googleWithUserCredentials,
      'Invalid configuration: GOOGLE_WALLET_SERVICE_ACCOUNT is not a service account key (its type is "authorized_user", not "service_account")',
    ],
    // Paying by card: the key needs the webhook's signing secret (docs/product/paying-by-card.md).
    [
      'STRIPE_WEBHOOK_SECRET',
      { STRIPE_SECRET_KEY: 'sk_test_stampwise' },
      'Invalid configuration: STRIPE_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set (the signing secret of the webhook endpoint)',
    ],
    ['STRIPE_SECRET_KEY', { STRIPE_SECRET_KEY: 'pk_test_publishable', STRIPE_WEBHOOK_SECRET: 'whsec_x' }],
  ])(
    'an invalid %s stops it with exit code 1 and one line on stderr naming the variable',
    async (name, env, line) => {
      const dataDir = createDataDir('server-invalid')
      try {
        const result = await runTsToEnd('server.ts', { env: { DATA_DIR: dataDir.dir, PORT: '0', ...env } })
        expect(result.code).toBe(1)
        const lines = result.stderr.split('\n').filter(Boolean)
        expect(lines).toHaveLength(1)
        expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${name} `))
        if (line) expect(lines[0]).toBe(line)
        expect(result.stdout).toBe('')
        expect(fs.readdirSync(dataDir.dir)).toEqual([])
      } finally {
        await killChildren() // before removing the folder they hold
        dataDir.remove()
      }
    },
    30_000,
  )

  test('with paying by card on, a missing Stripe price stops the start with one line naming it; with all six it starts', async () => {
    const dataDir = createDataDir('server-stripe')
    const peer = await startStripePeer()
    try {
      const port = await freePort()
      const missing = startServer(dataDir.dir, port, peer.env())
      expect(await missing.exited).toEqual({ code: 1, signal: null })
      expect(missing.stderr().split('\n').filter(Boolean)).toEqual([
        'Invalid configuration: Stripe has no price stampwise_basic_month: run npm run stripe:setup',
      ])
      // The six prices, as `npm run stripe:setup` makes them (tests/integration/stripe-setup.test.ts).
      const amounts = { basic: [1900, 19000], standard: [3900, 39000], premium: [7900, 79000] }
      for (const [plan, [month, year]] of Object.entries(amounts)) {
        const product = `stampwise_${plan}`
        peer.addPrice({ product, unit_amount: month!, lookup_key: `${product}_month` })
        peer.addPrice({
          product,
          unit_amount: year!,
          lookup_key: `${product}_year`,
          recurring: { interval: 'year', interval_count: 1 },
        })
      }
      const started = startServer(dataDir.dir, port, peer.env())
      await waitFor200(`http://127.0.0.1:${port}/healthz`, started)
      started.process.kill('SIGTERM')
      expect(await started.exited).toEqual({ code: 0, signal: null })
      expect(peer.violations()).toEqual([])
    } finally {
      await killChildren() // before removing the folder they hold
      await peer.close()
      dataDir.remove()
    }
  }, 150_000)

  test('on a fresh data folder it serves / within 45 s and creates the demo account once', async () => {
    const dataDir = createDataDir('server-fresh')
    try {
      const port = await freePort()
      const started = Date.now()
      const first = startServer(dataDir.dir, port)
      await waitFor200(`http://127.0.0.1:${port}/`, first)
      const startupMs = Date.now() - started
      // A bound that only catches a start-up gone wrong (a hang, a migration looping): the start-up budget itself is
      // measured on a quiet machine by `npm run bench:landing` (about 7 s); under a loaded 2-core machine (other
      // test files run beside this one) the same start took over 20 s.
      expect(startupMs, `spawn to the first 200 on / took ${startupMs} ms`).toBeLessThan(45_000)

      expect(first.stdout()).toContain('Demo account created')
      expect(first.stdout()).toContain(`e-mail: ${DEMO_EMAIL}`)
      expect(first.stdout()).toContain(`password: ${DEMO_PASSWORD}`)
      expect(first.stdout()).toContain(`counter at /staff: ${DEMO_STAFF_EMAIL}, same password`)
      first.process.kill('SIGTERM')
      expect(await first.exited).toEqual({ code: 0, signal: null })

      const second = startServer(dataDir.dir, port)
      await waitFor200(`http://127.0.0.1:${port}/`, second)
      expect(second.stdout()).not.toContain('Demo account')
      second.process.kill('SIGTERM')
      expect(await second.exited).toEqual({ code: 0, signal: null })
      expect(second.stderr()).toBe('')
    } finally {
      await killChildren() // before removing the folder they hold
      dataDir.remove()
    }
  }, 150_000)

  test('SIGTERM lets a slow request finish, then the process exits 0 and releases the data folder', async () => {
    const dataDir = await createBlankDataDir('server-sigterm')
    try {
      const port = await freePort()
      const server = startServer(dataDir.dir, port)
      await waitFor200(`http://127.0.0.1:${port}/healthz`, server)

      // A contact form whose body trickles in: its action waits for the whole body, then writes to the database.
      const marker = `graceful-${crypto.randomBytes(6).toString('hex')}`
      const body = new URLSearchParams({
        name: 'Slow Client',
        email: 'slow@example.com',
        subject: 'Slow',
        message: marker,
      }).toString()
      const socket = net.connect(port, '127.0.0.1')
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
      let answer = ''
      let answeredAt = 0
      socket.setEncoding('utf8').on('data', (chunk: string) => {
        answeredAt ||= Date.now()
        answer += chunk
      })
      const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())))
      socket.write(
        `POST /contacts HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
      )
      await new Promise((resolve) => setTimeout(resolve, 300))

      server.process.kill('SIGTERM')
      await new Promise((resolve) => setTimeout(resolve, 500))
      // Stopping: no new connections, but the request in flight goes on.
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow()
      expect(server.process.exitCode).toBeNull()
      for (let i = 10; i < body.length; i += 10) {
        socket.write(body.slice(i, i + 10))
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const closedAt = await closed
      expect(answer).toMatch(/^HTTP\/1\.1 303 /)
      // The answer tells the client not to reuse the connection, rather than holding the process for its
      // keep-alive timeout (a load balancer's connection would otherwise keep it until the grace delay kills it).
      expect(answer.split('\r\n\r\n')[0]).toMatch(/\r\nConnection: close\r\n/i)
      expect(closedAt - answeredAt).toBeLessThan(1_000)

      const exit = await server.exited
      expect(Date.now() - answeredAt).toBeLessThan(3_000)
      expect(exit).toEqual({ code: 0, signal: null })
      expect(server.stderr()).toBe('')
      expect(fs.existsSync(embeddedSocketPath(dataDir.dir))).toBe(false)
      expect(fs.existsSync(path.join(dataDir.dir, 'stampwise.lock'))).toBe(false)
      expect(readLockHolder(dataDir.dir)).toBeUndefined()

      // The request's write reached the database before it was closed.
      const embedded = await startEmbeddedDatabase(dataDir.dir, { maxConnections: 1 })
      const client = new pg.Client({ host: embedded.socketDir, user: 'postgres', database: 'postgres' })
      try {
        await client.connect()
        const { rows } = await client.query('select source from feedback_messages where message = $1', [marker])
        expect(rows).toEqual([{ source: 'contacts' }])
      } finally {
        await client.end()
        await embedded.close()
      }
    } finally {
      await killChildren() // before removing the folder they hold
      dataDir.remove()
    }
  }, 90_000)
})
