import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import {
  addressOf,
  buildAddresses,
  createAuthorizationRecords,
  createCard,
  fillText,
} from '#tests/support/authorization-fixture.ts'
import { countChanges, integrityProblems, rowCounts } from '#tests/support/database-integrity.ts'
import { describeBody, encodeBody, hostileBody, rawBodies, type HostileBody } from '#tests/support/hostile-input.ts'
import { unreadableReason } from '#tests/support/readable-answer.ts'
import { startTestServer } from '#tests/support/test-server.ts'
import { AUTHORIZATION_TABLE, type Outcome, type RecordName, type Role, type Row } from './authorization-table.ts'
import { FUZZ_PLANS, type FuzzPlan } from './bad-input-plans.ts'

/**
 * Issue #8, "Bad input": every form action and JSON call of the build gets hostile bodies (bad-input-plans.ts,
 * tests/support/hostile-input.ts) as the role that may use it. For every answer: never 5xx; a 4xx carries a
 * message a person can read (tests/support/readable-answer.ts) and leaves every table's row count as it was; after
 * each route the database's foreign keys and CHECK constraints still hold.
 *
 * Replay: BAD_INPUT_SEED=<seed> (printed when the file starts; route n uses seed + n), BAD_INPUT_RUNS=<runs a route>.
 */
const SEED = Number(process.env.BAD_INPUT_SEED ?? 20_261_126)
const NUM_RUNS = Number(process.env.BAD_INPUT_RUNS ?? 15)

let server: Awaited<ReturnType<typeof startTestServer>>
let records: Record<RecordName, string>
let cookies: Partial<Record<Role, string>>

beforeAll(async () => {
  // Hostile bodies by the hundred from one address: at the usual limits most would only see the 429 page.
  process.env.RATE_LIMIT_FACTOR = '1000'
  resetEnvForTests()
  server = await startTestServer()
  ;({ records, cookies } = await createAuthorizationRecords(server))
  console.info(`bad-input fuzz: seed ${SEED}, ${NUM_RUNS} runs a route (replay with BAD_INPUT_SEED=${SEED})`)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

/** A role is refused when the table sends it to the sign-in page or answers 401, 403 or 404. */
const isRefusal = (outcome: Outcome) => outcome === 'login' || outcome === 401 || outcome === 403 || outcome === 404

/**
 * The role the fuzz posts as: a guest where guests may post (public and guest-only forms; there the signed-in are
 * only sent to their account), else owner A, else the admin, else owner A's staff member (the counter's pages).
 */
function fuzzRole(row: Row): Role {
  if (FUZZ_PLANS[row.route]?.refusedToEveryone) return 'guest'
  const role = (['guest', 'ownerA', 'admin', 'staff'] as const).find((candidate) => !isRefusal(row.post![candidate]))
  if (!role) throw new Error(`${row.route}: no role may post here`)
  return role
}

const ROWS_WITH_ACTIONS = AUTHORIZATION_TABLE.filter((row) => row.post)
// Admin actions act on owner A's account (a plan change, say): they run after everything owner A posts.
const FUZZED_ROWS = [
  ...ROWS_WITH_ACTIONS.filter((row) => !row.route.startsWith('/admin')),
  ...ROWS_WITH_ACTIONS.filter((row) => row.route.startsWith('/admin')),
]

/** Sends one hostile body; answers what is wrong with the answer, or null. */
async function send(row: Row, role: Role, method: string, body: HostileBody): Promise<string | null> {
  const values = { ...records }
  if (row.fresh === 'card') values.card = (await createCard(values.userA, 'fuzz')).id
  const address = addressOf(row, values)
  const { contentType, payload } = encodeBody(body)
  const headers: Record<string, string> = {}
  if (cookies[role]) headers.Cookie = cookies[role]!
  if (contentType !== null) headers['Content-Type'] = contentType
  const before = await rowCounts()
  const response = await server.fetch(address, { method, headers, body: payload })
  const text = await response.text()
  const what = () => `${method} ${address} as ${role} with ${describeBody(body)}`
  if (response.status >= 500) return `${what()}: ${response.status}`
  if (response.status < 400) return null
  const unreadable = unreadableReason(address, response, text)
  if (unreadable) return `${what()}: ${response.status}, ${unreadable}`
  const changed = countChanges(before, await rowCounts())
  if (changed.length) return `${what()}: refused with ${response.status} but changed ${changed.join(', ')}`
  return null
}

/** The plan's valid body with owner A's records in it. */
const filledBase = (plan: FuzzPlan) =>
  Object.fromEntries(Object.entries(plan.base ?? {}).map(([name, value]) => [name, fillText(value, records)]))

describe('bad input', () => {
  test('every route of the build with an action has a fuzz plan, and every plan its route', async () => {
    const addresses = await buildAddresses()
    const withAction = [...addresses].filter(([, { hasAction }]) => hasAction).map(([address]) => address)
    expect({
      withoutPlan: withAction.filter((address) => !FUZZ_PLANS[address]),
      withoutRoute: Object.keys(FUZZ_PLANS).filter((address) => !withAction.includes(address)),
      notInTable: Object.keys(FUZZ_PLANS).filter((address) => !ROWS_WITH_ACTIONS.some((row) => row.route === address)),
    }).toEqual({ withoutPlan: [], withoutRoute: [], notInTable: [] })
  })

  test.for(FUZZED_ROWS.map((row, index) => [row.route, row, index] as const))(
    '%s',
    { timeout: 240_000 },
    async ([route, row, index]) => {
      const plan = FUZZ_PLANS[route]
      expect(plan, `a fuzz plan for ${route}`).toBeDefined()
      const role = fuzzRole(row)
      const methods = plan!.methods ?? ['POST']

      // The same unparseable bodies and wrong content types for every route, then random ones.
      const problems: string[] = []
      for (const method of methods) {
        for (const body of rawBodies()) {
          const problem = await send(row, role, method, body)
          if (problem) problems.push(problem)
        }
      }
      expect(problems, 'answers to malformed bodies').toEqual([])

      const bodies = hostileBody({ fields: plan!.fields, intents: plan!.intents ?? [], base: filledBase(plan!) })
      await fc.assert(
        fc.asyncProperty(bodies, fc.constantFrom(...methods), async (body, method) => {
          const problem = await send(row, role, method, body)
          if (problem) throw new Error(problem)
        }),
        { seed: SEED + index, numRuns: NUM_RUNS, endOnFailure: true },
      )
      expect(await integrityProblems(), 'foreign keys and CHECK constraints').toEqual([])
    },
  )
})
