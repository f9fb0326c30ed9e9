import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { getStripe } from '#app/server/stripe.server.ts'
import { setUpStripePrices } from '#app/services/billing/stripe-prices.server.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { killChildren, runTs } from '#tests/support/child-process.ts'
import { startStripePeer, type StripePeer } from '#tests/support/stripe-peer.ts'

/*
 * Issue 33, proof: "two processes receiving the same event at once apply it once". Two real server processes on this
 * file's database (PostgreSQL server only: the embedded database belongs to one process) get each event at the same
 * moment, as Stripe's retry and a load balancer can make happen: each owner's plan makes one transition, one notice,
 * and one event record, whichever process applied it.
 */
let peer: StripePeer
let bases: string[] = []

beforeAll(async () => {
  if (!usingServer()) return
  peer = await startStripePeer()
  Object.assign(process.env, peer.env())
  resetEnvForTests()
  await setUpStripePrices((await getStripe())!)
  // PORT=0: each process takes the port the system gives it and logs it, so no other test's server can take it
  // between a port being found free and the process listening on it.
  const children = [0, 1].map(() =>
    runTs('server.ts', {
      env: {
        PORT: '0',
        // As deployed: its log (JSON on stdout) says the port it listens on; under tests it would log errors only.
        NODE_ENV: 'production',
        APP_URL: 'http://127.0.0.1',
        DATABASE_URL: process.env.DATABASE_URL!,
        SESSION_SECRET: 'stripe-instances-secret-0123456789abcdef',
        LOG_LEVEL: 'info',
        ...peer.env(),
      },
    }),
  )
  bases = await Promise.all(
    children.map(async (child, index) => {
      const deadline = Date.now() + 90_000
      while (Date.now() < deadline && child.process.exitCode === null) {
        const port = /"port":(\d+)[^\n]*Stampwise is listening/.exec(child.stdout())?.[1]
        if (port) return `http://127.0.0.1:${port}`
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      throw new Error(
        `instance ${index} did not start (exit ${child.process.exitCode}): ${child.stderr().slice(-1000)} ${child.stdout().slice(-1000)}`,
      )
    }),
  )
}, 180_000)

afterAll(async () => {
  await killChildren()
  if (peer) {
    for (const name of Object.keys(peer.env())) delete process.env[name]
    resetEnvForTests()
    await peer.close()
  }
})

describe.runIf(usingServer())('the webhook on two processes', () => {
  test('the same event at both at once is applied once', async () => {
    const owners = await Promise.all(Array.from({ length: 5 }, () => createOwner()))
    for (const owner of owners) {
      const customer = `cus_${owner.id.slice(0, 8)}`
      const subscription = peer.createSubscription({
        customer,
        lookupKey: 'stampwise_basic_year',
        metadata: { owner_id: owner.id },
      })
      const event = peer.signedEvent('customer.subscription.created', subscription)
      const answers = await Promise.all(
        [...bases, ...bases].map((base) => peer.deliver(`${base}/api/stripe/webhook`, event)),
      )
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200])
      const outcomes = answers.map((answer) => (JSON.parse(answer.body) as { outcome: string }).outcome)
      expect(outcomes.filter((outcome) => outcome === 'already applied')).toHaveLength(3)
      const changes = await sql<{ to_status: string }>(
        `select c.to_status from subscription_status_changes c join subscriptions s on s.id = c.subscription_id
         where s.user_id = :userId order by c.changed_at`,
        { userId: owner.id },
      )
      expect(changes.map((change) => change.to_status)).toEqual(['trial', 'active'])
      expect(await sql(`select kind from notices where user_id = :userId`, { userId: owner.id })).toEqual([
        { kind: 'payment_confirmed' },
      ])
      expect(await sql(`select count(*)::int as n from stripe_events where id = :id`, { id: event.id })).toEqual([
        { n: 1 },
      ])
    }
    expect(peer.violations()).toEqual([])
  }, 60_000)
})
