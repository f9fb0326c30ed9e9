import crypto from 'node:crypto'
import { expect, test } from 'vitest'
import { prepareNotification } from '#app/services/push/push-delivery.server.ts'
import { getApplePassRow } from '#models/apple-pass.server.ts'
import { countHolders } from '#models/holders.server.ts'
import { getOwnedNotification } from '#models/notification.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/*
 * Audiences and which devices a message reaches (issue 19 items 4 and 6; docs/product/automations.md "Audiences",
 * docs/product/push-messages.md "Subscriptions"): the confirm page and its JSON count holders and devices per channel
 * for each audience, with the holders page's definitions; a broadcast to an audience makes web push deliveries, Apple
 * Wallet pushes and Google Wallet calls for that audience's passes only, and only those Apple passes show it; a
 * holder's automatic message reaches that pass's browsers, Apple Wallet devices and Google Wallet object only, and the
 * pass shows it. No job queue runs in this file: prepareNotification is called as the push-message job calls it, and
 * the rows it makes are read, not sent.
 */
const server = useTestServer()
const base = (cardId: string) => `/account/${cardId}/push_notification`
const DAY = 86_400_000

const code = () => Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join('')

type Holder = { id: string; endpoint: string | null; device: string | null; google: boolean }

/** A pass with its last visit and stamps, and the channels asked for. */
async function addHolder(
  cardId: string,
  {
    lastVisitDaysAgo,
    stamps,
    web,
    apple,
    google,
  }: { lastVisitDaysAgo: number; stamps: number } & Record<'web' | 'apple' | 'google', boolean>,
): Promise<Holder> {
  const at = new Date(Date.now() - lastVisitDaysAgo * DAY)
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code, stamps, created_at, last_visit_at)
     values (:cardId, :code, :stamps, :at, :at) returning id`,
    { cardId, code: code(), stamps, at },
  )
  const id = pass!.id
  let endpoint: string | null = null
  let device: string | null = null
  if (web) {
    endpoint = `https://fcm.googleapis.com/fcm/send/${crypto.randomBytes(8).toString('hex')}`
    await sql(`insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values (:id, :endpoint, 'k', 'a')`, {
      id,
      endpoint,
    })
  }
  if (apple) {
    device = `device-${crypto.randomBytes(6).toString('hex')}`
    await sql(`insert into apple_devices (id, push_token) values (:device, :token)`, {
      device,
      token: crypto.randomBytes(32).toString('hex'),
    })
    await sql(`insert into apple_registrations (device_id, pass_id) values (:device, :id)`, { device, id })
  }
  if (google) await sql(`insert into google_wallet_objects (pass_id, card_id) values (:id, :cardId)`, { id, cardId })
  return { id, endpoint, device, google }
}

/**
 * A card of 8 stamps with one holder per audience, each reachable on its own mix of channels, plus one active holder
 * of every channel who is in no audience but 'all'.
 */
async function cardWithAudiences() {
  const owner = await createOwner()
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 8, 'A free coffee') returning id`,
    { userId: owner.id, slug: `reach-${crypto.randomBytes(5).toString('hex')}` },
  )
  const cardId = card!.id
  const holders = {
    inactive: await addHolder(cardId, { lastVisitDaysAgo: 40, stamps: 1, web: true, apple: true, google: true }),
    oneToGo: await addHolder(cardId, { lastVisitDaysAgo: 2, stamps: 7, web: true, apple: false, google: false }),
    waiting: await addHolder(cardId, { lastVisitDaysAgo: 3, stamps: 8, web: false, apple: true, google: false }),
    active: await addHolder(cardId, { lastVisitDaysAgo: 1, stamps: 2, web: true, apple: true, google: true }),
    // In the audiences, with no device: counted as a holder, not as reached.
    silent: await addHolder(cardId, { lastVisitDaysAgo: 50, stamps: 7, web: false, apple: false, google: false }),
  }
  return { owner, cardId, holders }
}

async function draft(cookie: string, cardId: string, title = 'Happy hour') {
  const response = await server.post(`${base(cardId)}/create`, { title, body: `${title}: two coffees for one` }, cookie)
  expect(response.status).toBe(302)
  return response.headers.get('Location')!.split('/').pop()!
}

const text = async (response: Response) =>
  (await response.text())
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')

/** The rows a prepared message has on each channel: which subscriptions, devices and saved passes. */
async function channelRows(id: string) {
  const web = await sql<{ endpoint: string }>(
    `select s.endpoint from deliveries d join push_subscriptions s on s.id = d.push_subscription_id
     where d.notification_id = :id order by 1`,
    { id },
  )
  const apple = await sql<{ device_id: string }>(
    `select device_id from apple_pushes where notification_id = :id order by 1`,
    { id },
  )
  const google = await sql<{ pass_id: string }>(
    `select pass_id from google_wallet_updates where notification_id = :id and kind = 'message' order by 1`,
    { id },
  )
  return {
    web: web.map((row) => row.endpoint),
    apple: apple.map((row) => row.device_id),
    google: google.map((row) => row.pass_id),
  }
}

const expected = (holders: Holder[]) => ({
  web: holders.flatMap((holder) => (holder.endpoint ? [holder.endpoint] : [])).sort(),
  apple: holders.flatMap((holder) => (holder.device ? [holder.device] : [])).sort(),
  google: holders.flatMap((holder) => (holder.google ? [holder.id] : [])).sort(),
})

const passModifiedAt = async (passId: string) =>
  new Date(
    (await sql<{ at: Date }>(`select wallet_modified_at as at from passes where id = :passId`, { passId }))[0]!.at,
  ).getTime()
const cardModifiedAt = async (cardId: string) =>
  new Date(
    (await sql<{ at: Date }>(`select wallet_modified_at as at from cards where id = :cardId`, { cardId }))[0]!.at,
  ).getTime()

test('each audience: the confirm page and its JSON count its holders and devices per channel; a bad one is 400', async () => {
  const { owner, cardId } = await cardWithAudiences()
  const cookie = await logIn(server, owner.email)
  const id = await draft(cookie, cardId)
  const cases = [
    ['all', 5, 4, { web: 3, appleWallet: 3, googleWallet: 2 }],
    ['inactive', 2, 1, { web: 1, appleWallet: 1, googleWallet: 1 }],
    ['one_to_go', 2, 1, { web: 1, appleWallet: 0, googleWallet: 0 }],
    ['reward_waiting', 1, 1, { web: 0, appleWallet: 1, googleWallet: 0 }],
  ] as const
  for (const [audience, inAudience, reached, reach] of cases) {
    const response = await server.fetch(`/api${base(cardId)}/confirm/${id}/data?audience=${audience}`, {
      headers: { Cookie: cookie },
    })
    expect(response.status).toBe(200)
    expect(await response.json(), audience).toMatchObject({
      audience,
      holders: { inAudience, reached },
      reach,
      recipients: reach.web + reach.appleWallet + reach.googleWallet,
      notification: { status: 'draft' },
    })
  }
  // The holders page's filters count the same holders (one definition of each).
  const filters = {
    all: 'all',
    inactive: 'inactive',
    one_to_go: 'one-to-go',
    reward_waiting: 'reward-waiting',
  } as const
  for (const [audience, inAudience] of cases.map(([audience, count]) => [audience, count] as const))
    expect(await countHolders({ cardId, userId: owner.id }, { filter: filters[audience] }), audience).toBe(inAudience)
  const page = await text(
    await server.fetch(`${base(cardId)}/confirm/${id}?audience=inactive`, { headers: { Cookie: cookie } }),
  )
  expect(page).toContain('No visit for 30+ days: 2 holders, 1 of them reached.')
  expect(page).toContain('Will reach 3 devices: 1 with notifications on, 1 in Apple Wallet, 1 in Google Wallet')
  const all = await text(await server.fetch(`${base(cardId)}/confirm/${id}`, { headers: { Cookie: cookie } }))
  expect(all).toContain('All holders: 5 holders, 4 of them reached.')
  expect(all).toContain('Will reach 8 devices: 3 with notifications on, 3 in Apple Wallet, 2 in Google Wallet')

  // A value the select does not offer: 400 on both, with the reason; the page shows all holders.
  const bad = await server.fetch(`${base(cardId)}/confirm/${id}?audience=everyone`, { headers: { Cookie: cookie } })
  expect(bad.status).toBe(400)
  expect(await text(bad)).toContain('There is no audience “everyone”')
  const badJson = await server.fetch(`/api${base(cardId)}/confirm/${id}/data?audience=everyone`, {
    headers: { Cookie: cookie },
  })
  expect(badJson.status).toBe(400)
  expect(JSON.stringify(await badJson.json())).toContain('Choose who receives the message')
  const badSend = await server.fetch(`${base(cardId)}/confirm/${id}`, {
    method: 'POST',
    headers: { Cookie: cookie },
    body: new URLSearchParams({ intent: 'send', audience: 'everyone' }),
  })
  expect(badSend.status).toBe(400)
  expect(await sql(`select status from notifications where id = :id`, { id })).toEqual([{ status: 'draft' }])
})

test('a broadcast to an audience reaches its passes on every channel, and only their Apple passes show it', async () => {
  const { owner, cardId, holders } = await cardWithAudiences()
  const cookie = await logIn(server, owner.email)
  const audiences = [
    ['inactive', [holders.inactive, holders.silent]],
    ['one_to_go', [holders.oneToGo, holders.silent]],
    ['reward_waiting', [holders.waiting]],
  ] as const
  for (const [audience, members] of audiences) {
    const id = await draft(cookie, cardId, `To ${audience}`)
    const cardBefore = await cardModifiedAt(cardId)
    const response = await server.fetch(`${base(cardId)}/confirm/${id}`, {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ intent: 'send', audience }),
    })
    expect(response.status, audience).toBe(302)
    const [row] = await sql<{ audience: string; recipients: number }>(
      `select audience, recipients from notifications where id = :id`,
      { id },
    )
    expect(row!.audience).toBe(audience)
    await prepareNotification(id)
    expect(await channelRows(id), audience).toEqual(expected([...members]))
    expect(row!.recipients).toBe(
      expected([...members]).web.length + expected([...members]).apple.length + expected([...members]).google.length,
    )
    // The card's passes are new (one row moves, however large the audience); only the audience's devices are
    // pushed (above), and only its passes show the message (below).
    expect(await cardModifiedAt(cardId)).toBeGreaterThan(cardBefore)
    const sending = await getOwnedNotification({ ownerId: owner.id, cardId, notificationId: id })
    expect(sending!.progress.channels).toMatchObject({
      web: { pending: expected([...members]).web.length },
      appleWallet: { pending: expected([...members]).apple.length },
      googleWallet: { pending: expected([...members]).google.length },
    })
  }
  expect((await getApplePassRow(holders.inactive.id))!.latestMessage).toBe('To inactive: two coffees for one')
  expect((await getApplePassRow(holders.waiting.id))!.latestMessage).toBe('To reward_waiting: two coffees for one')
  expect((await getApplePassRow(holders.active.id))!.latestMessage).toBeNull()

  // A broadcast to all: every pass, the card's time moves, and every pass shows it.
  const id = await draft(cookie, cardId, 'To everyone')
  const cardBefore = await cardModifiedAt(cardId)
  await server.fetch(`${base(cardId)}/confirm/${id}`, { method: 'POST', headers: { Cookie: cookie } })
  await prepareNotification(id)
  expect(await channelRows(id)).toEqual(expected(Object.values(holders)))
  expect(await cardModifiedAt(cardId)).toBeGreaterThan(cardBefore)
  for (const holder of Object.values(holders))
    expect((await getApplePassRow(holder.id))!.latestMessage).toBe('To everyone: two coffees for one')
})

test("a holder's automatic message reaches that pass's browser, Apple Wallet and Google Wallet only, and shows", async () => {
  const { owner, cardId, holders } = await cardWithAudiences()
  const target = holders.inactive
  const cardBefore = await cardModifiedAt(cardId)
  const passBefore = await passModifiedAt(target.id)
  const otherBefore = await passModifiedAt(holders.active.id)
  const [row] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, pass_id, kind, status, title, body, counts_toward_quota, queued_at,
       occasion)
     values (:cardId, :userId, :passId, 'we_miss_you', 'queued', 'We miss you', 'Come back for a coffee on us', false,
       now(), 'we_miss_you:1')
     returning id`,
    { cardId, userId: owner.id, passId: target.id },
  )
  const id = row!.id
  await prepareNotification(id)
  expect(await channelRows(id)).toEqual(expected([target]))
  const message = await getOwnedNotification({ ownerId: owner.id, cardId, notificationId: id })
  expect(message!.status).toBe('sending')
  expect(message!.progress.channels).toEqual({
    web: { sent: 0, failed: 0, pending: 1 },
    appleWallet: { sent: 0, failed: 0, pending: 1 },
    googleWallet: { sent: 0, failed: 0, pending: 1 },
  })
  // Its pass is new and shows the message on its back; the card and the other passes did not change.
  expect(await passModifiedAt(target.id)).toBeGreaterThan(passBefore)
  expect(await cardModifiedAt(cardId)).toBe(cardBefore)
  expect(await passModifiedAt(holders.active.id)).toBe(otherBefore)
  const pass = await getApplePassRow(target.id)
  expect(pass!.latestMessage).toBe('Come back for a coffee on us')
  expect(pass!.modifiedAt.getTime()).toBe(await passModifiedAt(target.id))
  expect((await getApplePassRow(holders.active.id))!.latestMessage).toBeNull()
  // Preparing again (a second job) adds nothing.
  await prepareNotification(id)
  expect(await channelRows(id)).toEqual(expected([target]))

  // A stamp push stays web push only: the wallets show the stamp through their own rows.
  const [stamp] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, pass_id, kind, status, title, body, counts_toward_quota, queued_at)
     values (:cardId, :userId, :passId, 'stamp', 'queued', 'Corner Coffee', '2 of 8 stamps', false, now())
     returning id`,
    { cardId, userId: owner.id, passId: target.id },
  )
  await prepareNotification(stamp!.id)
  expect(await channelRows(stamp!.id)).toEqual({ web: [target.endpoint], apple: [], google: [] })
  expect((await getApplePassRow(target.id))!.latestMessage).toBe('Come back for a coffee on us')
})
