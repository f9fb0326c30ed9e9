import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { logIn } from '#tests/support/auth-api.ts'
import {
  addressOf,
  buildAddresses,
  createAuthorizationRecords,
  createCard,
  fillText,
} from '#tests/support/authorization-fixture.ts'
import { startTestServer } from '#tests/support/test-server.ts'
import {
  AUTHORIZATION_TABLE,
  ROLES,
  type Outcome,
  type RecordName,
  type Role,
  type Row,
} from './authorization-table.ts'

/**
 * Issue #7's authorization walk: every address of the built app, as a guest, owner A, owner B and an admin, against
 * the table in authorization-table.ts. The route list is the build's, so a new route without a row fails here.
 */
let server: Awaited<ReturnType<typeof startTestServer>>
let records: Record<RecordName, string>
let cookies: Partial<Record<Role, string>>
let emails: Partial<Record<Role, string>>

beforeAll(async () => {
  server = await startTestServer()
  ;({ records, cookies, emails } = await createAuthorizationRecords(server))
})

afterAll(async () => {
  await server.close()
})

/** Why the answer is not the expected one, or null when it is. */
async function mismatch(response: Response, expected: Outcome, address: string, values: Record<RecordName, string>) {
  const { status } = response
  const location = response.headers.get('Location')
  const got = location ? `${status} → ${location}` : `${status}`
  await response.body?.cancel()
  const contentType = response.headers.get('Content-Type')
  if (address.startsWith('/api/') && status >= 400 && !contentType?.startsWith('application/json')) {
    return `expected a JSON answer, got ${got} ${contentType}`
  }
  const isRedirect = status >= 300 && status < 400
  if (expected === 'ok') return status >= 200 && status < 300 ? null : `expected 2xx, got ${got}`
  if (expected === 'login') {
    const login = `/login?${new URLSearchParams({ redirectTo: address })}`
    return isRedirect && location === login ? null : `expected a redirect to ${login}, got ${got}`
  }
  if (typeof expected === 'object') {
    const place = typeof expected.to === 'string' ? fillText(expected.to, values) : expected.to
    const matches = typeof place === 'string' ? location === place : place.test(location ?? '')
    return isRedirect && matches ? null : `expected a redirect to ${String(place)}, got ${got}`
  }
  return status === expected ? null : `expected ${expected}, got ${got}`
}

async function request(row: Row, method: 'GET' | 'POST', role: Role): Promise<string | null> {
  const values = { ...records }
  let cookie = cookies[role]
  if (method === 'POST' && row.fresh === 'card') values.card = (await createCard(values.userA, 'fresh')).id
  if (method === 'POST' && row.fresh === 'session' && role !== 'guest') cookie = await logIn(server, emails[role]!)
  const address = addressOf(row, values)
  const init: RequestInit = { method, headers: cookie ? { Cookie: cookie } : {} }
  if (method === 'POST') {
    const body = Object.entries(row.body ?? {}).map(([key, value]) => [key, fillText(value, values)])
    init.headers = { ...init.headers, 'Content-Type': 'application/x-www-form-urlencoded' }
    init.body = new URLSearchParams(body).toString()
  }
  const expected = method === 'GET' ? row.get : row.post!
  const problem = await mismatch(await server.fetch(address, init), expected[role], address, values)
  return problem && `${method} ${address} as ${role}: ${problem}`
}

describe('authorization', () => {
  test('the table has one row for every address of the build, and a POST where the route has an action', async () => {
    const addresses = await buildAddresses()
    const rows = new Map(AUTHORIZATION_TABLE.map((row) => [row.route, row]))
    expect(rows.size, 'one row per address').toBe(AUTHORIZATION_TABLE.length)
    const withoutRow = [...addresses]
      .filter(([address]) => !rows.has(address))
      .map(([address, { routeIds }]) => `${address} (${routeIds.join(', ')})`)
    const withoutRoute = [...rows.keys()].filter((address) => !addresses.has(address))
    const postMismatch = [...addresses]
      .filter(([address, { hasAction }]) => rows.has(address) && hasAction !== Boolean(rows.get(address)!.post))
      .map(
        ([address, { hasAction }]) =>
          `${address}: ${hasAction ? 'has an action but no post row' : 'has a post row but no action'}`,
      )
    expect(
      { withoutRow, withoutRoute, postMismatch },
      'routes of the build without a row, rows without a route, POST rows that do not match an action',
    ).toEqual({
      withoutRow: [],
      withoutRoute: [],
      postMismatch: [],
    })
  })

  test.for(AUTHORIZATION_TABLE.map((row) => [row.route, row] as const))('%s', { timeout: 60_000 }, async ([, row]) => {
    const problems: string[] = []
    for (const method of row.post ? (['GET', 'POST'] as const) : (['GET'] as const)) {
      const answers = await Promise.all(ROLES.map((role) => request(row, method, role)))
      problems.push(...answers.filter((answer) => answer !== null))
    }
    expect(problems).toEqual([])
  })
})
