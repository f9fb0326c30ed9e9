import crypto from 'node:crypto'
import { expect, test } from 'vitest'
import { stampPass } from '#app/services/cards/stamping.server.ts'
import { finishIfComplete } from '#app/services/push/push-delivery.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { createPushAudience } from '#tests/support/push-audience.ts'
import { usePushDelivery } from '#tests/support/push-delivery-harness.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/*
 * A message to the card's holders reaches web push devices and Apple Wallet devices, counted apart (issue 16 item 4;
 * docs/product/wallets.md "Reach and history count channels"): the confirm page and its JSON call show each channel's
 * reach, sending queues one APNs push per Apple Wallet device naming the message, history and progress count
 * delivered / failed / pending per channel, and the message is done only when both channels have settled. No APNs
 * sender runs here: the test settles the apple_pushes rows itself, as the sender would, and calls finishIfComplete as
 * it does.
 */
const endpoint = usePushDelivery()
const server = useTestServer()

const base = (cardId: string) => `/account/${cardId}/push_notification`
/** What the owner reads: the page's text without scripts, styles and tags. */
async function readPage(pathname: string, cookie: string) {
  const response = await server.get(pathname, cookie)
  expect(response.status, pathname).toBe(200)
  return (await response.text())
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
}
const confirmData = async (cardId: string, id: string, cookie: string) => {
  const response = await server.get(`/api${base(cardId)}/confirm/${id}/data`, cookie)
  expect(response.status).toBe(200)
  return response.json()
}

/** A device in Apple Wallet registered for these passes, as Apple's web service would have stored it. */
async function addAppleDevice(passIds: string[]) {
  const deviceId = `device-${crypto.randomBytes(6).toString('hex')}`
  await sql(`insert into apple_devices (id, push_token) values (:deviceId, :token)`, {
    deviceId,
    token: crypto.randomBytes(32).toString('hex'),
  })
  for (const passId of passIds) {
    await sql(`insert into apple_registrations (device_id, pass_id) values (:deviceId, :passId)`, { deviceId, passId })
  }
  return deviceId
}

async function addPass(cardId: string) {
  const shortCode = Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join('')
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) values (:cardId, :shortCode) returning id`,
    { cardId, shortCode },
  )
  return { id: pass!.id, shortCode }
}

async function composeDraft(cookie: string, cardId: string) {
  const response = await server.post(
    `${base(cardId)}/create`,
    { title: 'Happy hour', body: 'Two coffees for one until 6 pm' },
    cookie,
  )
  expect(response.status).toBe(302)
  return response.headers.get('Location')!.split('/').pop()!
}

async function send(cookie: string, cardId: string, id: string) {
  const response = await server.fetch(`${base(cardId)}/confirm/${id}`, { method: 'POST', headers: { Cookie: cookie } })
  expect(response.status).toBe(302)
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const statusOf = async (id: string) =>
  (await sql<{ status: string }>(`select status from notifications where id = :id`, { id }))[0]!.status
const applePushes = (id: string) =>
  sql<{ device_id: string; status: string }>(
    `select device_id, status from apple_pushes where notification_id = :id order by device_id`,
    { id },
  )
/** What the APNs sender does with a row's outcome. */
const settle = (id: string, deviceId: string, status: 'sent' | 'failed' | 'gone') =>
  sql(`update apple_pushes set status = :status where notification_id = :id and device_id = :deviceId`, {
    id,
    deviceId,
    status,
  })

test('web push and Apple Wallet: reach, one APNs push per device, counts per channel, done once both settle', async () => {
  const { owner, cardId, passIds } = await createPushAudience(endpoint, ['ok', 'ok'])
  const cookie = await logIn(server, owner.email)
  // Two Apple Wallet devices: one holds a pass without notifications, the other two passes of the card (one push).
  const walletOnly = await addPass(cardId)
  const deviceA = await addAppleDevice([walletOnly.id])
  const deviceB = await addAppleDevice([passIds[0]!, walletOnly.id])
  const devices = [deviceA, deviceB].sort()

  const id = await composeDraft(cookie, cardId)
  const draftPage = await readPage(`${base(cardId)}/confirm/${id}`, cookie)
  expect(draftPage).toContain('Will reach 4 devices: 2 with notifications on, 2 in Apple Wallet')
  expect(draftPage).not.toContain('No holder of this card')
  expect(await confirmData(cardId, id, cookie)).toMatchObject({
    recipients: 4,
    reach: { web: 2, appleWallet: 2, googleWallet: 0 },
    notification: { status: 'draft' },
  })
  const [before] = await sql<{ at: Date }>(`select wallet_modified_at as at from cards where id = :cardId`, { cardId })

  await send(cookie, cardId, id)
  // The web pushes arrive; the Apple Wallet rows wait for their sender, so the message is still sending.
  await waitFor(
    async () =>
      (await sql(`select 1 from deliveries where notification_id = :id and status = 'sent'`, { id })).length === 2,
    'both web pushes',
  )
  await finishIfComplete(id)
  expect(await statusOf(id)).toBe('sending')
  expect((await applePushes(id)).map((row) => [row.device_id, row.status])).toEqual(
    devices.map((device) => [device, 'pending']),
  )
  expect(await sql(`select recipients from notifications where id = :id`, { id })).toEqual([{ recipients: 4 }])
  // The card's passes are new: Wallet fetches them and shows the message.
  const [after] = await sql<{ at: Date }>(`select wallet_modified_at as at from cards where id = :cardId`, { cardId })
  expect(new Date(after!.at).getTime()).toBeGreaterThan(new Date(before!.at).getTime())

  const sending = await confirmData(cardId, id, cookie)
  expect(sending).toMatchObject({
    recipients: 4,
    reach: { web: 2, appleWallet: 2, googleWallet: 0 },
    notification: {
      status: 'sending',
      progress: {
        total: 4,
        sent: 2,
        failed: 0,
        pending: 2,
        percent: 50,
        channels: {
          web: { sent: 2, failed: 0, pending: 0 },
          appleWallet: { sent: 0, failed: 0, pending: 2 },
          googleWallet: { sent: 0, failed: 0, pending: 0 },
        },
      },
    },
  })
  expect(await readPage(`${base(cardId)}/confirm/${id}`, cookie)).toContain(
    'Apple Wallet: 0 sent · 0 failed · 2 pending',
  )
  let history = await readPage(`${base(cardId)}/history`, cookie)
  expect(history).toContain('2 delivered · 0 failed · 2 pending')
  expect(history).toContain('Notifications on: 2 delivered · 0 failed · 0 pending')
  expect(history).toContain('Apple Wallet: 0 delivered · 0 failed · 2 pending')

  // One device answered: still one pending, still sending.
  await settle(id, devices[0]!, 'sent')
  await finishIfComplete(id)
  expect(await statusOf(id)).toBe('sending')
  history = await readPage(`${base(cardId)}/history`, cookie)
  expect(history).toContain('3 delivered · 0 failed · 1 pending')
  expect(history).toContain('Apple Wallet: 1 delivered · 0 failed · 1 pending')

  // The other's registration is gone (APNs 410): the message is done, and the owner hears how it went.
  await settle(id, devices[1]!, 'gone')
  await finishIfComplete(id)
  expect(await statusOf(id)).toBe('done')
  history = await readPage(`${base(cardId)}/history`, cookie)
  expect(history).toContain('Happy hour Partly delivered')
  expect(history).toContain('3 delivered · 1 failed · 0 pending')
  expect(history).toContain('Apple Wallet: 1 delivered · 1 failed · 0 pending')
  const done = await confirmData(cardId, id, cookie)
  expect(done.notification.progress).toMatchObject({
    total: 4,
    sent: 3,
    failed: 1,
    pending: 0,
    percent: 100,
    channels: {
      web: { sent: 2, failed: 0, pending: 0 },
      appleWallet: { sent: 1, failed: 1, pending: 0 },
      googleWallet: { sent: 0, failed: 0, pending: 0 },
    },
  })
  expect(done.reach).toEqual({ web: 2, appleWallet: 2, googleWallet: 0 })
  const progressPage = await readPage(`${base(cardId)}/confirm/${id}`, cookie)
  expect(progressPage).toContain('Notifications on: 2 sent · 0 failed · 0 pending')
  expect(progressPage).toContain('Apple Wallet: 1 sent · 1 failed · 0 pending')
  expect(
    await sql(`select message from notices where user_id = :userId and kind = 'push_finished'`, { userId: owner.id }),
  ).toEqual([{ message: 'Your push "Happy hour" reached 3 holders (1 could not be reached)' }])

  // A stamp's push goes to that holder's browser only; Wallet hears of a stamp through its own rows, so the stamp
  // push names none and finishes at once.
  const [code] = await sql<{ short_code: string }>(`select short_code from passes where id = :passId`, {
    passId: passIds[0],
  })
  expect((await stampPass({ ownerId: owner.id, cardId, code: code!.short_code })).ok).toBe(true)
  const [stamp] = await sql<{ id: string }>(`select id from notifications where card_id = :cardId and kind = 'stamp'`, {
    cardId,
  })
  await waitFor(async () => (await statusOf(stamp!.id)) === 'done', 'the stamp push to finish')
  expect(await applePushes(stamp!.id)).toEqual([])
  // Device B still hears of the stamp, through a row that names no message.
  expect(
    await sql(`select 1 from apple_pushes where device_id = :deviceB and notification_id is null`, { deviceB }),
  ).toHaveLength(1)
})

test('a card whose holders have it only in Apple Wallet can send, and finishes once Wallet is told', async () => {
  const owner = await createOwner()
  const cookie = await logIn(server, owner.email)
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 8, 'A free coffee') returning id`,
    { userId: owner.id, slug: `wallet-${crypto.randomBytes(5).toString('hex')}` },
  )
  const cardId = card!.id
  const pass = await addPass(cardId)
  const device = await addAppleDevice([pass.id])

  const id = await composeDraft(cookie, cardId)
  const draftPage = await readPage(`${base(cardId)}/confirm/${id}`, cookie)
  expect(draftPage).toContain('Will reach 1 device in Apple Wallet')
  expect(draftPage).not.toContain('No holder of this card')
  expect(await confirmData(cardId, id, cookie)).toMatchObject({
    recipients: 1,
    reach: { web: 0, appleWallet: 1, googleWallet: 0 },
  })

  await send(cookie, cardId, id)
  // No web push to send, so no chunk: the message still waits for its Apple Wallet push.
  await waitFor(async () => (await statusOf(id)) === 'sending', 'the message to be prepared')
  expect(await applePushes(id)).toEqual([{ device_id: device, status: 'pending' }])
  await finishIfComplete(id)
  expect(await statusOf(id)).toBe('sending')
  expect((await confirmData(cardId, id, cookie)).notification.progress).toMatchObject({
    total: 1,
    pending: 1,
    channels: {
      web: { sent: 0, failed: 0, pending: 0 },
      appleWallet: { sent: 0, failed: 0, pending: 1 },
      googleWallet: { sent: 0, failed: 0, pending: 0 },
    },
  })

  await settle(id, device, 'sent')
  await finishIfComplete(id)
  expect(await statusOf(id)).toBe('done')
  const history = await readPage(`${base(cardId)}/history`, cookie)
  expect(history).toContain('Happy hour Delivered')
  expect(history).toContain('Apple Wallet: 1 delivered · 0 failed · 0 pending')
  expect(history).not.toContain('Notifications on:')
  expect(
    await sql(`select message from notices where user_id = :userId and kind = 'push_finished'`, { userId: owner.id }),
  ).toEqual([{ message: 'Your push "Happy hour" reached 1 holder' }])
})
