import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { type ServerBuild } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { startTestServer } from '#tests/support/test-server.ts'
import { AUTHORIZATION_TABLE, ROLES, type Outcome, type RecordName, type Role, type Row } from './authorization-table.ts'

/**
 * Issue #7's authorization walk: every address of the built app, as a guest, owner A, owner B and an admin, against
 * the table in authorization-table.ts. The route list is the build's, so a new route without a row fails here.
 */
let server: Awaited<ReturnType<typeof startTestServer>>
let records: Record<RecordName, string>
const cookies: Partial<Record<Role, string>> = {}
const emails: Partial<Record<Role, string>> = {}

/** Every address the build answers: a route with a path or an index, its parents' paths before it. */
async function buildAddresses() {
  const build = (await import(pathToFileURL(path.resolve('build/server/index.js')).href)) as ServerBuild
  const addresses = new Map<string, { hasAction: boolean; routeIds: string[] }>()
  for (const [id, route] of Object.entries(build.routes)) {
    if (id === 'root' || (route.path === undefined && !route.index)) continue
    const segments: string[] = []
    for (let at: typeof route | undefined = route; at; at = at.parentId ? build.routes[at.parentId] : undefined) {
      if (at.path) segments.unshift(at.path)
    }
    const address = `/${segments.join('/')}`
    const entry = addresses.get(address) ?? { hasAction: false, routeIds: [] }
    entry.hasAction ||= Boolean(route.module.action)
    entry.routeIds.push(id)
    addresses.set(address, entry)
  }
  return addresses
}

const PNG_BYTES = '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201e3f5a1a90000000049454e44ae426082'

async function createCard(userId: string, label: string) {
  const [card] = await sql<{ id: string; slug: string }>(
    `insert into cards (user_id, slug, status, title, business_name, reward, logo, logo_content_type)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 'A free coffee', decode(:png, 'hex'), 'image/png')
     returning id, slug`,
    { userId, slug: `authz-${label}-${Math.random().toString(36).slice(2, 10)}`, png: PNG_BYTES },
  )
  return card!
}

beforeAll(async () => {
  server = await startTestServer()
  const [ownerA, ownerB, admin] = await Promise.all([createOwner(), createOwner(), createOwner()])
  await sql(`update users set role = 'admin' where id = :id`, { id: admin.id })
  await sql(`update users set logo = decode(:png, 'hex'), logo_content_type = 'image/png', logo_updated_at = now() where id = :id`, {
    id: ownerA.id,
    png: PNG_BYTES,
  })
  const card = await createCard(ownerA.id, 'a')
  await createCard(ownerB.id, 'b')
  const [pass] = await sql<{ id: string }>(`insert into passes (card_id, short_code) values (:cardId, 'AUTHZ234') returning id`, { cardId: card.id })
  const [notification] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, title, body) values (:cardId, :userId, 'Happy hour', 'Two for one') returning id`,
    { cardId: card.id, userId: ownerA.id },
  )
  const [template] = await sql<{ id: string }>(`insert into templates (user_id, title, body) values (:userId, 'Own template', 'Own body') returning id`, {
    userId: ownerA.id,
  })
  records = {
    userA: ownerA.id,
    card: card.id,
    slug: card.slug,
    pass: pass!.id,
    notification: notification!.id,
    template: template!.id,
    icon: '192-0.png',
    post: 'paper-vs-digital-stamp-cards',
    nowhere: 'no-such-page',
  }
  for (const [role, user] of [['ownerA', ownerA], ['ownerB', ownerB], ['admin', admin]] as const) {
    emails[role] = user.email
    cookies[role] = await logIn(server, user.email)
  }
})

afterAll(async () => {
  await server.close()
})

const fillText = (text: string, values: Record<RecordName, string>) =>
  text.replace(/\{(\w+)\}/g, (_, name: RecordName) => values[name])

/** The row's address with owner A's records in it; `card` may be replaced (a fresh card to delete). */
function addressOf(row: Row, values: Record<RecordName, string>) {
  let address = row.route.replace(/:(\w+)|\*/g, (param, name: string | undefined) => {
    const record = row.fill?.[name ?? '*']
    if (!record) throw new Error(`${row.route}: the row does not say how to fill ${param}`)
    return encodeURIComponent(values[record])
  })
  if (row.query) address += `?${new URLSearchParams(Object.entries(row.query).map(([key, value]) => [key, fillText(value, values)]))}`
  return address
}

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
    const withoutRow = [...addresses].filter(([address]) => !rows.has(address)).map(([address, { routeIds }]) => `${address} (${routeIds.join(', ')})`)
    const withoutRoute = [...rows.keys()].filter((address) => !addresses.has(address))
    const postMismatch = [...addresses]
      .filter(([address, { hasAction }]) => rows.has(address) && hasAction !== Boolean(rows.get(address)!.post))
      .map(([address, { hasAction }]) => `${address}: ${hasAction ? 'has an action but no post row' : 'has a post row but no action'}`)
    expect({ withoutRow, withoutRoute, postMismatch }, 'routes of the build without a row, rows without a route, POST rows that do not match an action').toEqual({
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
