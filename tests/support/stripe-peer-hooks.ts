import { afterAll, beforeAll } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { getStripe } from '#app/server/stripe.server.ts'
import { setUpStripePrices } from '#app/services/billing/stripe-prices.server.ts'
import { startStripePeer, type StripePeer } from './stripe-peer.ts'

/**
 * One Stripe peer for the calling test file: started in beforeAll, the app's Stripe settings pointed at it (and the
 * plans' six prices made there, unless `prices: false`), all undone in afterAll. The handle reads the started peer, so
 * a file writes `const peer = useStripePeer()` at the top, as it does `useTestServer()`.
 */
export function useStripePeer({ prices = true }: { prices?: boolean } = {}): StripePeer {
  let started: StripePeer | undefined
  beforeAll(async () => {
    started = await startStripePeer()
    Object.assign(process.env, started.env())
    resetEnvForTests()
    if (prices) await setUpStripePrices((await getStripe())!)
  })
  afterAll(async () => {
    if (!started) return
    for (const name of Object.keys(started.env())) delete process.env[name]
    resetEnvForTests()
    await started.close()
  })
  return new Proxy({} as StripePeer, {
    get: (_target, name) => {
      if (!started) throw new Error('The Stripe peer starts in beforeAll: use it inside a test or a later hook')
      return started[name as keyof StripePeer]
    },
  })
}
