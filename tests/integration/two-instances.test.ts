import crypto from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { usingServer } from '#tests/setup/test-database.ts'
import { STRONG_PASSWORD, sql, tokenFromMail, uniqueEmail } from '#tests/support/auth-api.ts'
import { killChildren, runTs, type Child } from '#tests/support/child-process.ts'
import { freePort } from '#tests/support/free-port.ts'
import { openPassStream } from '#tests/support/pass-live-stream.ts'
import { startPushEndpoint, type PushEndpoint } from '#tests/support/push-endpoint.ts'

/*
 * Several app processes behind a load balancer, on one PostgreSQL database (README, "Running several instances"):
 * two real server processes share this file's database, and one owner's and one holder's whole journey alternates
 * between them — sign-up, confirmation, sign-in, card design, join, push subscription, stamp, a push message whose
 * deliveries both processes take part in, an admin action — and every page is right on either. Sessions, rate limits,
 * caches and jobs must all live in the database for this to hold. The embedded database belongs to one process, so
 * this runs in the PostgreSQL-server run only.
 */

const SESSION_SECRET = 'two-instances-secret-0123456789abcdef'
const METRICS_TOKEN = 'two-instances-metrics'
/** Devices added in SQL beside the journey's own, so the message is split into several chunk jobs. */
const EXTRA_DEVICES = 1_200

type Instance = { name: string; base: string; child: Child }
let instances: [Instance, Instance]
let push: PushEndpoint

async function waitForHealth(instance: Instance) {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    const status = await fetch(`${instance.base}/healthz`).then(
      (response) => response.status,
      () => 0,
    )
    if (status === 200) return
    if (instance.child.process.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${instance.name} did not start: ${instance.child.stderr().slice(-2000)}`)
}

beforeAll(async () => {
  if (!usingServer()) return
  // Deliveries take a moment each, so the message's chunk jobs overlap and both processes poll some of them.
  push = await startPushEndpoint({ latencyMs: 150 })
  const ports = [await freePort(), await freePort()]
  const appUrl = `http://127.0.0.1:${ports[0]}`
  const start = (name: string, port: number): Instance => ({
    name,
    base: `http://127.0.0.1:${port}`,
    child: runTs('server.ts', {
      env: {
        PORT: String(port),
        APP_URL: appUrl,
        DATABASE_URL: process.env.DATABASE_URL!,
        SESSION_SECRET,
        METRICS_TOKEN,
        RATE_LIMIT_FACTOR: '100',
        PUSH_ALLOWED_HOSTS: push.host,
        LOG_LEVEL: 'warn',
      },
    }),
  })
  // Both start at once on the same database: migrations, the demo account and the job queue's tables race.
  instances = [start('A', ports[0]!), start('B', ports[1]!)]
  await Promise.all(instances.map(waitForHealth))
}, 180_000)

afterAll(async () => {
  await killChildren()
  await push?.close()
})

/** The n-th request of the journey goes to A or B in turn. */
let turn = 0
const next = () => instances[turn++ % 2]!
const form = (fields: Record<string, string>) => new URLSearchParams(fields)
const location = (response: Response) => response.headers.get('Location')

async function request(instance: Instance, pathname: string, init: RequestInit & { cookie?: string } = {}) {
  const headers = new Headers(init.headers)
  if (init.cookie) headers.set('Cookie', init.cookie)
  return fetch(new URL(pathname, instance.base), { redirect: 'manual', ...init, headers })
}

const page = async (instance: Instance, pathname: string, cookie?: string) => {
  const response = await request(instance, pathname, { cookie })
  expect(response.status, `${instance.name} GET ${pathname}`).toBe(200)
  return (await response.text()).replaceAll('<!-- -->', '')
}

/** The same page from both processes: both answer 200 and show `expected`. */
async function onBoth(pathname: string, cookie: string | undefined, expected: (string | RegExp)[]) {
  for (const instance of instances) {
    const html = await page(instance, pathname, cookie)
    for (const text of expected) {
      if (typeof text === 'string') expect(html, `${instance.name} ${pathname}`).toContain(text)
      else expect(html, `${instance.name} ${pathname}`).toMatch(text)
    }
  }
}

function sessionCookieOf(response: Response) {
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('__session='))
  expect(cookie, 'a session cookie').toBeDefined()
  return cookie!.split(';')[0]!
}

async function deliveriesCounted(instance: Instance) {
  const text = await (
    await request(instance, '/metrics', { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text()
  const line = text
    .split('\n')
    .find((row) => row.startsWith('stampwise_push_deliveries_total{channel="web",outcome="sent"}'))
  return line ? Number(line.split(' ').pop()) : 0
}

describe.runIf(usingServer())('two app processes on one PostgreSQL database', () => {
  test('a whole journey alternating between them is right on either', { timeout: 240_000 }, async () => {
    // Sign-up on one, the confirmation link on the other, sign-in on the first.
    const email = uniqueEmail('two-instances')
    const signedUp = await request(next(), '/sign-up', {
      method: 'POST',
      body: form({ email, password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD }),
    })
    expect(signedUp.status).toBe(302)
    const token = await tokenFromMail(email, '/email-confirmed')
    await page(next(), `/email-confirmed?token=${token}`)
    const [user] = await sql<{ id: string; confirmed: boolean }>(
      `select id, email_confirmed_at is not null as confirmed from users where email = :email`,
      { email },
    )
    expect(user!.confirmed).toBe(true)
    const loggedIn = await request(next(), '/login', {
      method: 'POST',
      body: form({ email, password: STRONG_PASSWORD }),
    })
    expect(loggedIn.status).toBe(302)
    const cookie = sessionCookieOf(loggedIn)

    // The card, designed over both.
    const designed = await request(next(), '/main', {
      method: 'POST',
      cookie,
      body: form({
        businessName: 'Two Shops Bakery',
        title: 'Bread card',
        stampsRequired: '5',
        backgroundColor: '#1F3A5F',
        textColor: '#ffffff',
        stampIcon: 'coffee',
      }),
    })
    expect(designed.status).toBe(302)
    const cardId = /cardId=([0-9a-f-]{36})/.exec(location(designed) ?? '')![1]!
    const rewarded = await request(next(), `/card_reward?cardId=${cardId}`, {
      method: 'POST',
      cookie,
      body: form({ reward: 'A free loaf', terms: '' }),
    })
    expect(location(rewarded)).toBe(`/card_ready?cardId=${cardId}`)
    const [card] = await sql<{ slug: string; status: string }>(`select slug, status from cards where id = :cardId`, {
      cardId,
    })
    expect(card!.status).toBe('active')
    await onBoth('/account', cookie, ['Bread card'])
    await onBoth(`/account/${cardId}`, cookie, ['Bread card', 'Two Shops Bakery'])

    // Holders join on either and subscribe to push on the other.
    const passIds: string[] = []
    for (let holder = 0; holder < 6; holder++) {
      const joined = await request(next(), `/c/${card!.slug}`, { method: 'POST', body: '' })
      expect(joined.status).toBe(303)
      const passId = /^\/p\/([0-9a-f-]{36})$/.exec(location(joined) ?? '')![1]!
      passIds.push(passId)
      const device = await push.createSubscription()
      const subscribed = await request(next(), `/p/${passId}/push-subscription`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(device),
      })
      expect(subscribed.status, await subscribed.clone().text()).toBeLessThan(300)
    }
    const [firstPass] = await sql<{ short_code: string }>(`select short_code from passes where id = :id`, {
      id: passIds[0],
    })
    await onBoth(`/p/${passIds[0]}`, undefined, ['Bread card', firstPass!.short_code])

    // The holder's pass open on both, as on two phones (decision 050): a stamp made through one reaches both open
    // pages within 2 s, and so does the message below.
    const liveStreams = await Promise.all(
      instances.map((instance) => openPassStream((path, init) => request(instance, path, init), passIds[0]!)),
    )
    expect(liveStreams.map((stream) => stream.response.status)).toEqual([200, 200])

    // A stamp on one shows on the other, on the owner's scan page and on the holder's pass.
    const stamped = await request(next(), `/account/${cardId}/scan`, {
      method: 'POST',
      cookie,
      body: form({ intent: 'stamp', code: firstPass!.short_code, count: '2' }),
    })
    expect(stamped.status).toBe(302)
    for (const stream of liveStreams) expect(await stream.next('change', 2_000)).toMatch(/^\d+\|\d+\|\d+$/)
    await onBoth(`/account/${cardId}/scan?pass=${passIds[0]}`, cookie, ['2 of 5 stamps'])
    await onBoth(`/p/${passIds[0]}`, undefined, [/2 of 5/])

    // More devices, so the message is several chunk jobs; then compose on one and send on the other.
    const devices = await Promise.all(Array.from({ length: EXTRA_DEVICES }, () => push.createSubscription()))
    const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
    const codes = [
      ...new Set(devices.map(() => Array.from(crypto.randomBytes(8), (byte) => alphabet[byte % 32]).join(''))),
    ]
    expect(codes).toHaveLength(devices.length)
    await sql(
      `with made as (insert into passes (card_id, short_code) select :cardId, unnest(array[:codes]) returning id, short_code)
       insert into push_subscriptions (pass_id, endpoint, p256dh, auth)
       select made.id, device.endpoint, device.p256dh, device.auth
       from made join json_to_recordset(:devices::json) as device(code text, endpoint text, p256dh text, auth text)
         on device.code = made.short_code`,
      {
        cardId,
        codes,
        devices: JSON.stringify(devices.map((d, i) => ({ code: codes[i], endpoint: d.endpoint, ...d.keys }))),
      },
    )
    const before = await Promise.all(instances.map(deliveriesCounted))
    const drafted = await request(next(), `/account/${cardId}/push_notification/create`, {
      method: 'POST',
      cookie,
      body: form({ title: 'Fresh bread', body: 'Warm loaves at both shops' }),
    })
    expect(drafted.status).toBe(302)
    const confirmPath = location(drafted)!
    const notificationId = confirmPath.split('/').pop()!
    expect((await request(next(), confirmPath, { method: 'POST', cookie, body: form({}) })).status).toBe(302)
    for (const stream of liveStreams) expect(await stream.next('change', 2_000)).toMatch(/^\d+\|\d+\|\d+$/)
    for (const stream of liveStreams) stream.close()
    await onBoth(`/p/${passIds[0]}`, undefined, ['Latest message', 'Warm loaves at both shops'])
    const deadline = Date.now() + 120_000
    let status = ''
    while (Date.now() < deadline && status !== 'done') {
      ;[{ status }] = (await sql<{ status: string }>(`select status from notifications where id = :id`, {
        id: notificationId,
      })) as [{ status: string }]
      if (status !== 'done') await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect(status).toBe('done')
    const audience = 6 + EXTRA_DEVICES
    const received = new Set(
      push
        .received()
        .filter((r) => r.payload?.includes('Fresh bread'))
        .map((r) => r.endpoint),
    )
    expect(received.size).toBe(audience)
    const after = await Promise.all(instances.map(deliveriesCounted))
    const byInstance = after.map((count, index) => count - before[index]!)
    // Both processes took part in the fan-out, and together they sent each device its message (a retried request
    // may count twice, never fewer).
    expect(byInstance[0], `A sent ${byInstance[0]}, B sent ${byInstance[1]}`).toBeGreaterThan(0)
    expect(byInstance[1], `A sent ${byInstance[0]}, B sent ${byInstance[1]}`).toBeGreaterThan(0)
    expect(byInstance[0]! + byInstance[1]!).toBeGreaterThanOrEqual(audience)
    await onBoth(`/account/${cardId}/push_notification/history`, cookie, ['Fresh bread'])

    // An admin on one extends the owner's trial; both show it, to the admin and to the owner.
    const adminEmail = uniqueEmail('two-instances-admin')
    const adminSignUp = await request(next(), '/sign-up', {
      method: 'POST',
      body: form({ email: adminEmail, password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD }),
    })
    expect(adminSignUp.status).toBe(302)
    await sql(`update users set role = 'admin', email_confirmed_at = now() where email = :adminEmail`, { adminEmail })
    const adminLogin = await request(next(), '/login', {
      method: 'POST',
      body: form({ email: adminEmail, password: STRONG_PASSWORD }),
    })
    const adminCookie = sessionCookieOf(adminLogin)
    const [trialBefore] = await sql<{ ends: string }>(
      `select trial_ends_at as ends from subscriptions where user_id = :id`,
      {
        id: user!.id,
      },
    )
    const extended = await request(next(), `/admin/users/${user!.id}`, {
      method: 'POST',
      cookie: adminCookie,
      body: form({ intent: 'extend-trial', days: '10', confirm: 'on' }),
    })
    expect(extended.status).toBeLessThan(400)
    const [trialAfter] = await sql<{ ends: string }>(
      `select trial_ends_at as ends from subscriptions where user_id = :id`,
      {
        id: user!.id,
      },
    )
    expect(new Date(trialAfter!.ends).getTime() - new Date(trialBefore!.ends).getTime()).toBe(10 * 86_400_000)
    await onBoth(`/admin/users/${user!.id}`, adminCookie, [email])
    const daysLeft = Math.ceil((new Date(trialAfter!.ends).getTime() - Date.now()) / 86_400_000)
    await onBoth('/account/plan', cookie, [`${daysLeft} days`])

    // Signing out on one ends the session on both.
    expect((await request(instances[0], '/logout', { method: 'POST', cookie })).status).toBe(302)
    for (const instance of instances) {
      expect(location(await request(instance, '/account', { cookie })), instance.name).toMatch(/^\/login/)
    }
  })
})
