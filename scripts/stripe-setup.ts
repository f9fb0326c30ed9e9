import { commandEnv, fail } from './command.ts'

/*
 * `npm run stripe:setup`: makes the plans' products and their six prices at Stripe (by lookup key,
 * docs/product/paying-by-card.md), those that are missing, at the amounts of the plans table. Run twice, the second
 * run makes nothing; after a plan's price changed, a new price takes over its lookup key. Needs STRIPE_SECRET_KEY and
 * the database (for the plans; the embedded one through a running server's socket, or opened here).
 */
const env = commandEnv()
if (!env.STRIPE_SECRET_KEY) fail('STRIPE_SECRET_KEY is not set: paying by card is off, there is nothing to set up')

const { openDatabase } = await import('#app/server/database-lifecycle.server.ts')
const { getStripe, stripeErrorLine } = await import('#app/server/stripe.server.ts')
const { setUpStripePrices } = await import('#app/services/billing/stripe-prices.server.ts')
const database = await openDatabase(env, { role: 'command' }).catch((error: Error) =>
  fail(`Could not open the database: ${error.message}`),
)
let result: Awaited<ReturnType<typeof setUpStripePrices>>
try {
  result = await setUpStripePrices((await getStripe(env))!)
} catch (error) {
  await database.close().catch(() => {})
  fail(stripeErrorLine(error))
}
await database.close()
for (const made of result.created) console.log(`created ${made}`)
console.log(
  result.created.length
    ? `Stripe is set up: ${result.created.length} made, ${result.kept.length} prices were already there.`
    : `Stripe was already set up: all ${result.kept.length} prices are there.`,
)
