import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { type ServerBuild } from '@remix-run/node'
import { type RecordName, type Role, type Row } from '#tests/integration/authorization-table.ts'
import { createOwner } from './account-owner.ts'
import { logIn, sql } from './auth-api.ts'
import { createStaffMember } from './staff-member.ts'
import { type TestServer } from './test-server.ts'

/**
 * What the authorization walk (tests/integration/authorization.test.ts) and the bad-input fuzz
 * (tests/integration/bad-input.test.ts) share: the build's list of addresses, and owner A's records with a signed-in
 * cookie for each role, so both walk the same routes with the same records.
 */

/** Every address the build answers: a route with a path or an index, its parents' paths before it. */
export async function buildAddresses() {
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

export const PNG_BYTES =
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201e3f5a1a90000000049454e44ae426082'

export async function createCard(userId: string, label: string) {
  const [card] = await sql<{ id: string; slug: string }>(
    `insert into cards (user_id, slug, status, title, business_name, reward, logo, logo_content_type, holder_details)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 'A free coffee', decode(:png, 'hex'), 'image/png',
             :holderDetails::jsonb)
     returning id, slug`,
    {
      userId,
      slug: `authz-${label}-${Math.random().toString(36).slice(2, 10)}`,
      png: PNG_BYTES,
      // The card asks every holder detail at joining (issue 34), so the walks reach those fields and pages.
      holderDetails: JSON.stringify({
        fields: ['name', 'email', 'phone', 'birthday'],
        when: 'joining',
        afterStamps: 2,
        privacyNote: 'We keep these to find your card again.',
        phoneCountry: 'FR',
      }),
    },
  )
  return card!
}

/**
 * Owners A and B, an admin, a staff member of each owner, owner A's card, pass, message and template, and each role
 * signed in.
 */
export async function createAuthorizationRecords(server: TestServer) {
  const [ownerA, ownerB, admin] = await Promise.all([createOwner(), createOwner(), createOwner()])
  const [staff, staffB] = await Promise.all([createStaffMember(ownerA.id), createStaffMember(ownerB.id)])
  await sql(`update users set role = 'admin' where id = :id`, { id: admin.id })
  await sql(
    `update users set logo = decode(:png, 'hex'), logo_content_type = 'image/png', logo_updated_at = now() where id = :id`,
    {
      id: ownerA.id,
      png: PNG_BYTES,
    },
  )
  const card = await createCard(ownerA.id, 'a')
  await createCard(ownerB.id, 'b')
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) values (:cardId, 'AUTHZ234') returning id`,
    { cardId: card.id },
  )
  const [notification] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, title, body) values (:cardId, :userId, 'Happy hour', 'Two for one') returning id`,
    { cardId: card.id, userId: ownerA.id },
  )
  const [template] = await sql<{ id: string }>(
    `insert into templates (user_id, title, body) values (:userId, 'Own template', 'Own body') returning id`,
    {
      userId: ownerA.id,
    },
  )
  const records: Record<RecordName, string> = {
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
  const cookies: Partial<Record<Role, string>> = {}
  const emails: Partial<Record<Role, string>> = {}
  for (const [role, user] of [
    ['ownerA', ownerA],
    ['ownerB', ownerB],
    ['admin', admin],
    ['staff', staff],
    ['staffB', staffB],
  ] as const) {
    emails[role] = user.email
    cookies[role] = await logIn(server, user.email)
  }
  return { records, cookies, emails }
}

export const fillText = (text: string, values: Record<RecordName, string>) =>
  text.replace(/\{(\w+)\}/g, (_, name: RecordName) => values[name])

/** The row's address with owner A's records in it; `card` may be replaced (a fresh card to delete). */
export function addressOf(row: Row, values: Record<RecordName, string>) {
  let address = row.route.replace(/:(\w+)|\*/g, (param, name: string | undefined) => {
    const record = row.fill?.[name ?? '*']
    if (!record) throw new Error(`${row.route}: the row does not say how to fill ${param}`)
    return encodeURIComponent(values[record])
  })
  if (row.query)
    address += `?${new URLSearchParams(Object.entries(row.query).map(([key, value]) => [key, fillText(value, values)]))}`
  return address
}
