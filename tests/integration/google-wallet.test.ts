import crypto from 'node:crypto'
import { importSPKI, jwtVerify } from 'jose'
import { afterAll, beforeAll, beforeEach, describe, expect, onTestFinished, test } from 'vitest'
import { startJobs } from '#app/main/jobs.server.ts'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { getGoogleWalletConfig } from '#app/server/google-wallet-config.server.ts'
import { cardReach } from '#app/services/push/card-reach.server.ts'
import { sendOwnerNotification } from '#app/services/push/push-send.server.ts'
import { googleWalletClientFor } from '#app/services/wallet/google-wallet-client.server.ts'
import { deliverGoogleWalletUpdates } from '#app/services/wallet/google-wallet-delivery.server.ts'
import { claimGoogleWalletUpdates } from '#models/google-wallet.server.ts'
import { createDraftNotification } from '#models/notification.server.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { makeGoogleServiceAccount } from '#tests/support/google-service-account.ts'
import { startGoogleWalletFake, type GoogleWalletFake } from '#tests/support/google-wallet-fake.ts'
import { useTestServer } from '#tests/support/test-server.ts'
import { createWalletCard, createWalletPass } from '#tests/support/wallet-device.ts'

/**
 * Google Wallet end to end (issue 17), on the real database (embedded, or the server with TEST_DATABASE_URL), against
 * a local fake of Google's API (tests/support/google-wallet-fake.ts) that checks the service account's token grant,
 * requires the bearer token on every call, refuses fields Google's published typings do not define, and keeps the
 * classes and objects the app made: the save link, the updates of a stamp, an undo, a redemption and a design
 * change, messages within Google's notification limit, retries, a 404 from Google, and the ends of cards and passes.
 */
const account = makeGoogleServiceAccount()
let fake: GoogleWalletFake
let jobs: Awaited<ReturnType<typeof startJobs>>
beforeAll(async () => {
  fake = await startGoogleWalletFake({
    issuerId: account.issuerId,
    clientEmail: account.clientEmail,
    publicKeyPem: account.publicKeyPem,
  })
  Object.assign(process.env, account.env(fake.origin))
  resetEnvForTests()
  jobs = await startJobs()
})
afterAll(async () => {
  await jobs?.stop()
  await fake?.close()
})
const server = useTestServer()

beforeEach(() => {
  expect(fake.violations()).toEqual([])
})

const objectId = (passId: string) => `${account.issuerId}.pass-${passId}`
const classId = (cardId: string) => `${account.issuerId}.card-${cardId}`
/** The calls about a class or an object: by its address, or (an insert) by the id in the body. */
const callsTo = (id: string, method?: string) =>
  fake
    .requests()
    .filter(
      (request) =>
        (request.path.includes(id) || (request.body as { id?: string } | null)?.id === id) &&
        (!method || request.method === method),
    )

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

async function ownerWithPass({ stamps = 0, stampsRequired = 5 } = {}) {
  const owner = await signedInOwner(server)
  const cardId = await createWalletCard(owner.id, { stampsRequired })
  const pass = await createWalletPass(cardId, stamps)
  return { owner, cardId, pass }
}

/** Follows 'Save to Google Wallet' as the holder's browser does (without going on to Google). */
const save = (passId: string) => server.fetch(`/p/${passId}/google-wallet`)

async function saved(options?: { stamps?: number; stampsRequired?: number }) {
  const made = await ownerWithPass(options)
  expect((await save(made.pass.id)).status).toBe(303)
  return made
}

const stamp = (cardId: string, cookie: string, code: string) =>
  server.post(`/account/${cardId}/scan`, { intent: 'stamp', code }, cookie)

const updatesOf = (passId: string) =>
  sql<{ kind: string; status: string; attempts: number; notified: boolean | null; notification_id: string | null }>(
    `select kind, status, attempts, notified, notification_id from google_wallet_updates where pass_id = :passId
     order by id`,
    { passId },
  )

/**
 * Sends what is queued, and waits for what the job queue's own run may have in flight at the same moment (this
 * process's jobs run beside the test).
 */
async function deliverAll() {
  await deliverGoogleWalletUpdates()
  await until(
    async () =>
      (
        await sql<{ count: number }>(
          `select count(*)::int as count from google_wallet_updates where status = 'pending'`,
        )
      )[0]!.count === 0,
    'nothing pending',
  )
}

const stampsAtGoogle = (passId: string) => fake.getObject(objectId(passId))?.loyaltyPoints?.balance?.string

describe('saving', () => {
  test('the link makes the class and the object, then answers 303 to Google with a JWT the service account signed', async () => {
    const { cardId, pass } = await ownerWithPass({ stamps: 2 })
    const response = await save(pass.id)
    expect(response.status).toBe(303)
    const location = response.headers.get('location')!
    expect(location).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\/[\w-]+\.[\w-]+\.[\w-]+$/)
    const jwt = location.slice('https://pay.google.com/gp/v/save/'.length)
    const { payload, protectedHeader } = await jwtVerify(jwt, await importSPKI(account.publicKeyPem, 'RS256'), {
      issuer: account.clientEmail,
      audience: 'google',
    })
    expect(protectedHeader.alg).toBe('RS256')
    expect(payload).toMatchObject({
      typ: 'savetowallet',
      origins: [process.env.APP_URL ?? expect.stringMatching(/^http/)],
      payload: { loyaltyObjects: [{ id: objectId(pass.id), classId: classId(cardId) }] },
    })

    expect(fake.getClass(classId(cardId))).toMatchObject({
      issuerName: 'Corner Coffee',
      programName: 'Coffee card',
      reviewStatus: 'UNDER_REVIEW',
      textModulesData: [{ header: 'Terms', body: 'One stamp per coffee' }],
    })
    const logo = fake.getClass(classId(cardId))!.programLogo!.sourceUri!.uri!
    expect(logo).toMatch(new RegExp(`/cards/${cardId}/logo\\.png\\?v=\\w+$`))
    expect((await server.fetch(new URL(logo).pathname + new URL(logo).search)).headers.get('content-type')).toBe(
      'image/png',
    )
    expect(fake.getObject(objectId(pass.id))).toMatchObject({
      classId: classId(cardId),
      state: 'ACTIVE',
      loyaltyPoints: { label: 'Stamps', balance: { string: '2 of 5' } },
      barcode: { type: 'QR_CODE', value: pass.shortCode, alternateText: pass.shortCode },
      textModulesData: [{ header: 'Reward', body: 'A free coffee' }],
      linksModuleData: {
        uris: [expect.objectContaining({ uri: expect.stringMatching(new RegExp(`/p/${pass.id}$`)) })],
      },
    })
    expect(fake.tokenRequests()).toBeGreaterThanOrEqual(1)

    // Saved once: following the link again signs a new JWT without calling Google.
    const calls = fake.requests().length
    expect((await save(pass.id)).status).toBe(303)
    expect(fake.requests()).toHaveLength(calls)
    expect(await sql(`select state from google_wallet_objects where pass_id = :id`, { id: pass.id })).toEqual([
      { state: 'active' },
    ])
  })

  test('a class and an object Google already has (409) are updated to what the card shows now', async () => {
    const { cardId, pass } = await saved()
    // Forgotten here (a restored backup, say) while Google keeps them; the card changed meanwhile.
    await sql(`delete from google_wallet_classes where card_id = :cardId`, { cardId })
    await sql(`delete from google_wallet_objects where pass_id = :id`, { id: pass.id })
    await sql(`update cards set title = 'Tea card' where id = :cardId`, { cardId })
    await sql(`update passes set stamps = 3 where id = :id`, { id: pass.id })
    expect((await save(pass.id)).status).toBe(303)
    expect(callsTo(classId(cardId)).map((call) => `${call.method} ${call.status}`)).toEqual([
      'POST 200',
      'POST 409',
      'PUT 200',
    ])
    expect(fake.getClass(classId(cardId))!.programName).toBe('Tea card')
    expect(stampsAtGoogle(pass.id)).toBe('3 of 5')
  })

  test('when Google cannot be reached the holder gets a 503 page leading back to the card, and nothing is recorded', async () => {
    const { pass } = await ownerWithPass()
    fake.failNext(1, 503)
    const unavailable = await save(pass.id)
    expect(unavailable.status).toBe(503)
    const html = await unavailable.text()
    expect(html).toContain('Google Wallet can’t be reached')
    expect(html).toContain(`href="/p/${pass.id}"`)
    fake.failNext(1, 'reset')
    expect((await save(pass.id)).status).toBe(503)
    expect(
      await sql(`select 1 from google_wallet_classes c join passes p on p.card_id = c.card_id where p.id = :id`, {
        id: pass.id,
      }),
    ).toEqual([])
    // Google is back: the same link works.
    expect((await save(pass.id)).status).toBe(303)
    expect(fake.getObject(objectId(pass.id))).toBeDefined()
  })

  test('an unknown pass is a 404; the pass page links to Google Wallet without JavaScript', async () => {
    expect((await save(crypto.randomUUID())).status).toBe(404)
    expect((await save('not-a-pass')).status).toBe(404)
    const { pass } = await ownerWithPass()
    const html = await (await server.fetch(`/p/${pass.id}`)).text()
    expect(html).toContain(`href="/p/${pass.id}/google-wallet"`)
    expect(html).toContain('Save to Google Wallet')
  })

  test('the owner’s card page says holders can save it, and counts those who did', async () => {
    const { owner, cardId } = await saved()
    const html = await (await server.fetch(`/account/${cardId}`, { headers: { cookie: owner.cookie } })).text()
    expect(html).toContain('Google Wallet: holders can save this card to Google Wallet from their card page.')
    expect(html).toMatch(/In Google Wallet<\/dt><dd>1<\/dd>/)
  })
})

describe('updates', () => {
  test('a stamp PATCHes the object’s stamps, and the stamp that earns the reward asks Google to notify', async () => {
    const { owner, cardId, pass } = await saved({ stamps: 3 })
    expect((await stamp(cardId, owner.cookie, pass.shortCode)).status).toBe(302)
    await until(() => stampsAtGoogle(pass.id) === '4 of 5', 'the stamp at Google')
    expect(fake.notifications(objectId(pass.id))).toHaveLength(0)
    expect((await stamp(cardId, owner.cookie, pass.shortCode)).status).toBe(302)
    await until(() => stampsAtGoogle(pass.id) === '5 of 5', 'the reward at Google')
    const patch = callsTo(objectId(pass.id), 'PATCH').at(-1)!
    expect(patch.body).toMatchObject({
      notifyPreference: 'NOTIFY_ON_UPDATE',
      textModulesData: [{ header: 'Reward', body: 'Reward earned: A free coffee' }],
    })
    await until(async () => (await updatesOf(pass.id)).every((row) => row.status === 'sent'), 'both recorded')
    expect(fake.notifications(objectId(pass.id))).toHaveLength(1)
    expect((await updatesOf(pass.id)).map((row) => [row.kind, row.notified])).toEqual([
      ['object', false],
      ['object', true],
    ])
  })

  test('an undo and a redemption PATCH it too; a pass without an object queues nothing', async () => {
    const { owner, cardId, pass } = await saved({ stamps: 4 })
    const unsaved = await createWalletPass(cardId, 1)
    await stamp(cardId, owner.cookie, pass.shortCode)
    await until(() => stampsAtGoogle(pass.id) === '5 of 5', 'the stamp')
    const undo = await server.post(`/account/${cardId}/scan`, { intent: 'undo', passId: pass.id }, owner.cookie)
    expect(undo.status).toBe(302)
    await until(() => stampsAtGoogle(pass.id) === '4 of 5', 'the undo')
    await sql(`update passes set stamps = 5 where id = :id`, { id: pass.id })
    await sql(`update passes set stamps = 0, rewards_redeemed = rewards_redeemed + 1 where id = :id`, { id: pass.id })
    await deliverAll()
    expect(stampsAtGoogle(pass.id)).toBe('0 of 5')
    await stamp(cardId, owner.cookie, unsaved.shortCode)
    expect(await updatesOf(unsaved.id)).toEqual([])
  })

  test('a design change PATCHes the class; a new number of stamps or reward PATCHes each object', async () => {
    const { cardId, pass } = await saved({ stamps: 2 })
    await sql(`update cards set background_color = '#112233' where id = :cardId`, { cardId })
    await deliverAll()
    expect(fake.getClass(classId(cardId))!.hexBackgroundColor).toBe('#112233')
    expect(callsTo(objectId(pass.id), 'PATCH')).toHaveLength(0)
    await sql(`update cards set stamps_required = 8, reward = 'Two free coffees' where id = :cardId`, { cardId })
    await deliverAll()
    expect(stampsAtGoogle(pass.id)).toBe('2 of 8')
    expect(fake.getObject(objectId(pass.id))!.textModulesData).toEqual([
      expect.objectContaining({ body: 'Two free coffees' }),
    ])
  })

  test('429 and 503 are retried until Google takes the call', async () => {
    const { owner, cardId, pass } = await saved()
    const objectPatch = (method: string, path: string) => method === 'PATCH' && path.includes(objectId(pass.id))
    fake.failNext(1, 429, objectPatch)
    fake.failNext(1, 503, objectPatch)
    await stamp(cardId, owner.cookie, pass.shortCode)
    await until(async () => (await updatesOf(pass.id))[0]?.status === 'sent', 'sent after retries', 20_000)
    expect(callsTo(objectId(pass.id), 'PATCH').map((call) => call.status)).toEqual([429, 503, 200])
    expect((await updatesOf(pass.id))[0]!.attempts).toBe(3)
    expect(stampsAtGoogle(pass.id)).toBe('1 of 5')
  })

  test('an object deleted on Google’s side (404) is marked gone; saving again makes it anew', async () => {
    const { owner, cardId, pass } = await saved()
    fake.deleteObject(objectId(pass.id))
    await stamp(cardId, owner.cookie, pass.shortCode)
    await until(async () => (await updatesOf(pass.id))[0]?.status === 'gone', 'the update gone')
    expect(await sql(`select state from google_wallet_objects where pass_id = :id`, { id: pass.id })).toEqual([
      { state: 'gone' },
    ])
    await stamp(cardId, owner.cookie, pass.shortCode)
    expect(await updatesOf(pass.id)).toHaveLength(1)
    expect((await save(pass.id)).status).toBe(303)
    expect(stampsAtGoogle(pass.id)).toBe('2 of 5')
  })

  test('after a crash mid-send only the calls in flight are sent again, once their lease ends', async () => {
    const { cardId, pass } = await saved()
    const second = await createWalletPass(cardId)
    expect((await save(second.id)).status).toBe(303)
    // This test is the only sender: the job queue (its minute's resume job) must not take the calls meanwhile.
    await jobs.stop()
    onTestFinished(async () => {
      jobs = await startJobs()
    })
    await sql(`update passes set stamps = 1 where id = :id`, { id: pass.id })
    await deliverGoogleWalletUpdates()
    expect(callsTo(objectId(pass.id), 'PATCH')).toHaveLength(1)
    await sql(`update passes set stamps = 2 where id in (:ids)`, { ids: [pass.id, second.id] })
    // A process claims the two calls and dies before making them: their leases hold them.
    expect(await claimGoogleWalletUpdates(10, 30)).toHaveLength(2)
    const held = await deliverGoogleWalletUpdates()
    expect(held.sent).toBe(0)
    expect(held.retryLaterInMs).toBeGreaterThan(20_000)
    await sql(`update google_wallet_updates set lease_until = now() - interval '1 second' where status = 'pending'`)
    await deliverGoogleWalletUpdates()
    expect(callsTo(objectId(pass.id), 'PATCH')).toHaveLength(2)
    expect(callsTo(objectId(second.id), 'PATCH')).toHaveLength(1)
    expect(stampsAtGoogle(second.id)).toBe('2 of 5')
  })
})

describe('messages', () => {
  async function sendMessage(ownerId: string, cardId: string, title: string, body: string) {
    const draft = await createDraftNotification({ ownerId, cardId, input: { title, body } })
    const sent = await sendOwnerNotification({ ownerId, cardId, notificationId: draft!.id })
    expect(sent.ok).toBe(true)
    await until(
      async () =>
        (await sql<{ status: string }>(`select status from notifications where id = :id`, { id: draft!.id }))[0]
          ?.status === 'done',
      'the message done',
    )
    return draft!.id
  }

  test('a message is added to each saved pass with a notification; reach and history count Google Wallet', async () => {
    const { owner, cardId, pass } = await saved()
    const second = await createWalletPass(cardId)
    expect((await save(second.id)).status).toBe(303)
    await createWalletPass(cardId)
    expect((await cardReach({ cardId, ownerId: owner.id })).reach).toEqual({ web: 0, appleWallet: 0, googleWallet: 2 })
    const id = await sendMessage(owner.id, cardId, 'Happy hour', 'Two coffees for one until 6 pm')
    for (const passId of [pass.id, second.id]) {
      expect(fake.getObject(objectId(passId))!.messages).toEqual([
        expect.objectContaining({
          id: `message-${id}`,
          header: 'Happy hour',
          body: 'Two coffees for one until 6 pm',
          messageType: 'TEXT_AND_NOTIFY',
        }),
      ])
      expect(fake.notifications(objectId(passId))).toHaveLength(1)
    }
    const history = await (
      await server.fetch(`/account/${cardId}/push_notification/history`, { headers: { cookie: owner.cookie } })
    ).text()
    expect(history).toContain('Google Wallet: 2 delivered · 0 failed · 0 pending')
  })

  test('past Google’s 3 notifications a day a message is shown without notifying, and counted so', async () => {
    const { owner, cardId, pass } = await saved()
    const fresh = await createWalletPass(cardId)
    expect((await save(fresh.id)).status).toBe(303)
    // The first pass's holder was notified 3 times in the last 24 hours (the reward, and two earlier messages).
    for (const hoursAgo of [1, 5, 23]) {
      await sql(
        `insert into google_wallet_updates (kind, card_id, pass_id, notify, notified, status, attempts, sent_at)
         values ('object', :cardId, :passId, true, true, 'sent', 1, now() - make_interval(hours => :hoursAgo))`,
        { cardId, passId: pass.id, hoursAgo },
      )
    }
    await sendMessage(owner.id, cardId, 'Last call', 'Pastries half price')
    expect(fake.getObject(objectId(pass.id))!.messages).toEqual([expect.objectContaining({ messageType: 'TEXT' })])
    expect(fake.getObject(objectId(fresh.id))!.messages).toEqual([
      expect.objectContaining({ messageType: 'TEXT_AND_NOTIFY' }),
    ])
    expect(fake.throttled(objectId(pass.id))).toBe(0)
    const history = await (
      await server.fetch(`/account/${cardId}/push_notification/history`, { headers: { cookie: owner.cookie } })
    ).text()
    expect(history).toContain('Google Wallet: 2 delivered · 0 failed · 0 pending · 1 shown, not notified')
  })

  test('Google keeps 10 messages per object: the 11th and 12th are added, the object keeping the newest 10', async () => {
    const { owner, cardId, pass } = await saved()
    await sql(`update subscriptions set additional_quota = 50 where user_id = :ownerId`, { ownerId: owner.id })
    const ids: string[] = []
    for (let n = 1; n <= 12; n++) ids.push(await sendMessage(owner.id, cardId, `News ${n}`, `Message number ${n}`))
    const messages = fake.getObject(objectId(pass.id))!.messages!
    expect(messages.map((message) => message.id)).toEqual(ids.slice(2).map((id) => `message-${id}`))
    expect(messages.at(-1)).toMatchObject({ header: 'News 12', body: 'Message number 12' })
    expect((await updatesOf(pass.id)).filter((update) => update.kind === 'message')).toEqual(
      ids.map((id) => expect.objectContaining({ status: 'sent', notification_id: id })),
    )
    // The fake refuses an 11th message (a violation): none was sent.
    expect(fake.violations()).toEqual([])
  })

  test('a notifying message Google refuses (403 quotaExceeded) is added again as a plain one, counted so', async () => {
    const { owner, cardId, pass } = await saved()
    // The holder was notified 3 times today by calls the app does not know of (another system of the business).
    const client = googleWalletClientFor(getGoogleWalletConfig()!)
    for (let n = 0; n < 3; n++) {
      const message = { id: `elsewhere-${n}`, header: 'Elsewhere', body: 'Sent by another system' }
      const answer = await client.request('POST', `loyaltyObject/${encodeURIComponent(objectId(pass.id))}/addMessage`, {
        message: { ...message, messageType: 'TEXT_AND_NOTIFY' },
      })
      expect(answer.status).toBe(200)
    }
    expect(fake.notifications(objectId(pass.id))).toHaveLength(3)

    const id = await sendMessage(owner.id, cardId, 'Last call', 'Pastries half price')
    const added = fake.getObject(objectId(pass.id))!.messages!.filter((message) => message.id === `message-${id}`)
    expect(added).toEqual([expect.objectContaining({ messageType: 'TEXT', body: 'Pastries half price' })])
    const refused = callsTo(objectId(pass.id), 'POST').filter((call) => call.status === 403)
    expect(refused).toHaveLength(1)
    expect(await updatesOf(pass.id)).toEqual([
      expect.objectContaining({ kind: 'message', status: 'sent', notified: false, notification_id: id }),
    ])
    const history = await (
      await server.fetch(`/account/${cardId}/push_notification/history`, { headers: { cookie: owner.cookie } })
    ).text()
    expect(history).toContain('Google Wallet: 1 delivered · 0 failed · 0 pending · 1 shown, not notified')
  })
})

describe('ending', () => {
  const states = (passIds: string[]) => passIds.map((passId) => fake.getObject(objectId(passId))?.state)

  test('deleting the card sets its saved passes INACTIVE at Google before the rows go', async () => {
    const { owner, cardId, pass } = await saved()
    const response = await server.post(`/account/${cardId}`, { intent: 'delete', confirm: 'Coffee card' }, owner.cookie)
    expect(response.status).toBe(302)
    await until(() => states([pass.id])[0] === 'INACTIVE', 'the object inactive')
    expect(await sql(`select 1 from google_wallet_objects where pass_id = :id`, { id: pass.id })).toEqual([])
  })

  test('deleting the account sets the saved passes of every card INACTIVE', async () => {
    const { owner, pass } = await saved()
    const otherCard = await createWalletCard(owner.id)
    const otherPass = await createWalletPass(otherCard)
    expect((await save(otherPass.id)).status).toBe(303)
    const response = await server.post('/account/profile', { intent: 'delete', confirm: owner.email }, owner.cookie)
    expect(response.status).toBeLessThan(400)
    await until(() => states([pass.id, otherPass.id]).every((state) => state === 'INACTIVE'), 'both inactive')
  })

  test('a holder who removes their card sets its object INACTIVE', async () => {
    const { cardId, pass } = await saved()
    const { deletePassCheckedByHolderDevice } = await import('#models/pass.server.ts')
    expect(await deletePassCheckedByHolderDevice({ passId: pass.id, cardId })).toBe(true)
    await deliverAll()
    expect(states([pass.id])).toEqual(['INACTIVE'])
  })
})
