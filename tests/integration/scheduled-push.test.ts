import { afterAll, beforeAll, expect, test } from 'vitest'
import { startJobs } from '#app/main/jobs.server.ts'
import { prepareNotification } from '#app/services/push/push-delivery.server.ts'
import { releaseDueBroadcasts } from '#app/services/push/scheduled-broadcasts.server.ts'
import { localInputValue, SCHEDULE_WHEN_MESSAGES } from '#app/utils/schedule-time.ts'
import { countQuotaPushesSince } from '#models/notification.server.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { createDraft, createPushAudience, waitUntilDone } from '#tests/support/push-audience.ts'
import { startPushEndpoint, type PushEndpoint } from '#tests/support/push-endpoint.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/*
 * Scheduled broadcasts (issue 19 item 3; docs/product/automations.md "Scheduled broadcasts"): the confirm page
 * schedules a draft for a date and time in the business's zone without taking the quota; the list shows it and cancels
 * it while it waits (not gated); at its time it goes out and takes the quota then, or is skipped with a notice when
 * none is left; it survives a restart of the job queue and goes within a second of its time. Release is called with a
 * fixed clock where the moment matters; the restart test runs the real job queue and its timer.
 */
const server = useTestServer()
let push: PushEndpoint
beforeAll(async () => {
  push = await startPushEndpoint()
})
afterAll(async () => {
  await push?.close()
})

const ZONE = 'Europe/Berlin'
const HOUR = 3_600_000
const base = (cardId: string) => `/account/${cardId}/push_notification`

async function ownerWithHolders(count = 2) {
  const audience = await createPushAudience(
    push,
    Array.from({ length: count }, () => 'ok' as const),
  )
  await sql(`update users set time_zone = :zone where id = :id`, { zone: ZONE, id: audience.owner.id })
  const cookie = await logIn(server, audience.owner.email)
  return { ...audience, cookie }
}

const schedule = (cardId: string, id: string, cookie: string, when: string, audience = 'all') =>
  server.post(`${base(cardId)}/confirm/${id}`, { intent: 'schedule', audience, when }, cookie)

const text = async (response: Response) =>
  (await response.text())
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&quot;', '"')
    .replaceAll('&#x27;', "'")
    .replace(/\s+/g, ' ')

const rowOf = async (id: string) =>
  (
    await sql<{
      status: string
      scheduled_for: Date | null
      queued_at: Date | null
      audience: string
      quota_source: string | null
      recipients: number
      skipped_reason: string | null
    }>(
      `select status, scheduled_for, queued_at, audience, quota_source, recipients, skipped_reason
       from notifications where id = :id`,
      { id },
    )
  )[0]!

test('Schedule stores the time in the business’s zone and the audience, takes no quota, and lists it', async () => {
  const { owner, cardId, cookie } = await ownerWithHolders()
  const id = await createDraft(owner.id, cardId, { title: 'Quiet afternoon', body: 'Double stamps from 2 to 4 pm' })
  const due = new Date(Math.ceil((Date.now() + 3 * HOUR) / 60_000) * 60_000)
  const response = await schedule(cardId, id, cookie, localInputValue(due, ZONE), 'one_to_go')
  expect(response.status).toBe(302)
  expect(response.headers.get('Location')).toBe(`${base(cardId)}/scheduled`)
  const row = await rowOf(id)
  expect(row).toMatchObject({ status: 'scheduled', audience: 'one_to_go', queued_at: null, quota_source: null })
  expect(new Date(row.scheduled_for!).getTime()).toBe(due.getTime())
  expect(await countQuotaPushesSince(owner.id, new Date(Date.now() - 40 * 24 * HOUR))).toBe(0)

  // Pressed twice: scheduled once, at the first time.
  const again = await schedule(cardId, id, cookie, localInputValue(new Date(due.getTime() + HOUR), ZONE))
  expect(again.status).toBe(302)
  expect(again.headers.get('Location')).toBe(`${base(cardId)}/confirm/${id}`)
  expect(new Date((await rowOf(id)).scheduled_for!).getTime()).toBe(due.getTime())

  const list = await text(await server.fetch(`${base(cardId)}/scheduled`, { headers: { Cookie: cookie } }))
  const shown = new Intl.DateTimeFormat('en-GB', {
    timeZone: ZONE,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(due)
  expect(list).toContain('Quiet afternoon')
  expect(list).toContain('Double stamps from 2 to 4 pm')
  expect(list).toContain(`${shown} · One stamp from the reward`)
  expect(list).toContain(`Times are in ${ZONE}`)
  const confirm = await text(await server.fetch(`${base(cardId)}/confirm/${id}`, { headers: { Cookie: cookie } }))
  expect(confirm).toContain(`Scheduled for ${shown} (${ZONE}), to one stamp from the reward.`)
  const json = await server.fetch(`/api${base(cardId)}/confirm/${id}/data`, { headers: { Cookie: cookie } })
  expect(await json.json()).toMatchObject({
    audience: 'one_to_go',
    notification: { status: 'scheduled', audience: 'one_to_go', scheduledFor: due.toISOString() },
  })
})

test('a time in the past, beyond 90 days or skipped by a DST change, or a bad audience, is a 400 that says why', async () => {
  const { owner, cardId, cookie } = await ownerWithHolders(1)
  const id = await createDraft(owner.id, cardId)
  const cases: [string, string, string][] = [
    [localInputValue(new Date(Date.now() - HOUR), ZONE), 'all', SCHEDULE_WHEN_MESSAGES.tooSoon],
    [localInputValue(new Date(Date.now() + 91 * 24 * HOUR), ZONE), 'all', SCHEDULE_WHEN_MESSAGES.tooFar],
    // Berlin's clocks jump from 02:00 to 03:00 on the last Sunday of March.
    [
      `${new Date().getUTCFullYear() + 1}-03-${lastSundayOfMarch(new Date().getUTCFullYear() + 1)}T02:30`,
      'all',
      SCHEDULE_WHEN_MESSAGES.gap,
    ],
    ['next tuesday', 'all', SCHEDULE_WHEN_MESSAGES.invalid],
    [localInputValue(new Date(Date.now() + HOUR), ZONE), 'everyone', 'Choose who receives the message'],
  ]
  for (const [when, audience, message] of cases) {
    const response = await schedule(cardId, id, cookie, when, audience)
    expect(response.status, when).toBe(400)
    expect(await text(response), when).toContain(message)
  }
  expect((await rowOf(id)).status).toBe('draft')
})

function lastSundayOfMarch(year: number) {
  const day = new Date(Date.UTC(year, 2, 31))
  return String(31 - day.getUTCDay()).padStart(2, '0')
}

test('Cancel stops it while it waits, also after the plan ended; one that went out says so', async () => {
  const { owner, cardId, cookie } = await ownerWithHolders(1)
  const id = await createDraft(owner.id, cardId)
  expect((await schedule(cardId, id, cookie, localInputValue(new Date(Date.now() + 2 * HOUR), ZONE))).status).toBe(302)
  // The plan ends: the list and Cancel still work.
  await sql(
    `update subscriptions set status = 'ended', trial_ends_at = now() - interval '1 day', additional_quota = 0
     where user_id = :id`,
    { id: owner.id },
  )
  expect((await server.fetch(`${base(cardId)}/scheduled`, { headers: { Cookie: cookie } })).status).toBe(200)
  const cancelled = await server.post(`${base(cardId)}/scheduled`, { intent: 'cancel', id }, cookie)
  expect(cancelled.status).toBe(302)
  expect(cancelled.headers.get('Location')).toBe(`${base(cardId)}/scheduled`)
  expect((await rowOf(id)).status).toBe('cancelled')
  const list = await text(
    await server.fetch(`${base(cardId)}/scheduled`, {
      headers: {
        Cookie: `${cookie}; ${cancelled.headers
          .getSetCookie()
          .map((value) => value.split(';')[0])
          .join('; ')}`,
      },
    }),
  )
  expect(list).toContain('The scheduled message was cancelled.')
  expect(list).toContain('No messages are scheduled for this card.')
  // Its time comes: nothing goes.
  await releaseDueBroadcasts({ now: new Date(Date.now() + 3 * HOUR) })
  expect((await rowOf(id)).status).toBe('cancelled')
  // Cancelling again, or a message that went, changes nothing and says so.
  const again = await server.post(`${base(cardId)}/scheduled`, { intent: 'cancel', id }, cookie)
  expect(again.status).toBe(302)
  const sent = await createDraft(owner.id, cardId)
  await sql(`update notifications set status = 'done', queued_at = now() where id = :sent`, { sent })
  expect((await server.post(`${base(cardId)}/scheduled`, { intent: 'cancel', id: sent }, cookie)).status).toBe(302)
  expect((await rowOf(sent)).status).toBe('done')
  // Another owner's message is 404; a malformed form 400.
  const other = await ownerWithHolders(1)
  expect((await server.post(`${base(other.cardId)}/scheduled`, { intent: 'cancel', id }, other.cookie)).status).toBe(
    404,
  )
  expect((await server.post(`${base(cardId)}/scheduled`, { intent: 'cancel', id: 'nope' }, cookie)).status).toBe(400)
})

test('at its time it takes the quota then; with none left it is skipped and the owner is told', async () => {
  const { owner, cardId, cookie } = await ownerWithHolders(2)
  const first = await createDraft(owner.id, cardId, { title: 'Goes', body: 'Goes out' })
  const second = await createDraft(owner.id, cardId, { title: 'Too late', body: 'No quota left' })
  const due = new Date(Math.ceil((Date.now() + 5 * HOUR) / 60_000) * 60_000)
  // The second is due a minute later: the first takes the last message.
  expect((await schedule(cardId, first, cookie, localInputValue(due, ZONE))).status).toBe(302)
  expect((await schedule(cardId, second, cookie, localInputValue(new Date(due.getTime() + 60_000), ZONE))).status).toBe(
    302,
  )

  // A minute before its time nothing goes (rows of earlier tests in this database may).
  const early = await releaseDueBroadcasts({ now: new Date(due.getTime() - 60_000) })
  expect([...early.queued, ...early.skipped]).not.toContain(first)
  expect([...early.queued, ...early.skipped]).not.toContain(second)
  expect((await rowOf(first)).status).toBe('scheduled')
  // Nine of the trial's ten messages are used meanwhile: one is left for two due messages.
  await sql(
    `insert into notifications (card_id, user_id, title, body, status, queued_at, quota_source)
     select :cardId, :userId, 'Earlier', 'Earlier', 'done', now(), 'monthly' from generate_series(1, 9)`,
    { cardId, userId: owner.id },
  )
  const at = new Date(due.getTime() + 60_200)
  const released = await releaseDueBroadcasts({ now: at })
  expect(released.queued).toContain(first)
  expect(released.skipped).toContain(second)
  expect(await rowOf(first)).toMatchObject({ status: 'queued', quota_source: 'monthly', recipients: 2 })
  expect(new Date((await rowOf(first)).queued_at!).getTime()).toBe(at.getTime())
  expect(await rowOf(second)).toMatchObject({ status: 'skipped', skipped_reason: 'no_quota', queued_at: null })
  expect(await countQuotaPushesSince(owner.id, new Date(Date.now() - 40 * 24 * HOUR))).toBe(10)
  expect(
    await sql(`select message, link from notices where user_id = :id and dedupe_key like 'push_skipped:%'`, {
      id: owner.id,
    }),
  ).toEqual([
    {
      message: 'Your scheduled message "Too late" was not sent because no messages were left this month.',
      link: '/account/plan',
    },
  ])
  // Released twice (a second process, the next tick): nothing more.
  expect(await releaseDueBroadcasts({ now: at })).toEqual({ queued: [], skipped: [] })
  expect(await countQuotaPushesSince(owner.id, new Date(Date.now() - 40 * 24 * HOUR))).toBe(10)
  await prepareNotification(first)
  expect(await sql(`select count(*)::int as count from deliveries where notification_id = :first`, { first })).toEqual([
    { count: 2 },
  ])
})

test('an audience that reaches nobody at its time goes out with 0 and takes no quota', async () => {
  const { owner, cardId, cookie } = await ownerWithHolders(1)
  const id = await createDraft(owner.id, cardId, { title: 'Waiting rewards', body: 'Come and get it' })
  const due = new Date(Math.ceil((Date.now() + 7 * HOUR) / 60_000) * 60_000)
  expect((await schedule(cardId, id, cookie, localInputValue(due, ZONE), 'reward_waiting')).status).toBe(302)
  await releaseDueBroadcasts({ now: new Date(due.getTime() + 100) })
  expect(await rowOf(id)).toMatchObject({ status: 'queued', quota_source: null, recipients: 0 })
  expect(await countQuotaPushesSince(owner.id, new Date(Date.now() - 40 * 24 * HOUR))).toBe(0)
  await prepareNotification(id)
  expect((await rowOf(id)).status).toBe('done')
})

test('a schedule survives a restart of the job queue and goes within a second of its time', async () => {
  const { owner, cardId, subscriptions } = await ownerWithHolders(2)
  const id = await createDraft(owner.id, cardId, { title: 'On time', body: 'Right on time' })
  let jobs = await startJobs()
  // Scheduled while the queue runs (as the confirm page stores it), then the process's queue stops and starts again.
  const due = new Date(Date.now() + 4_000)
  await sql(`update notifications set status = 'scheduled', scheduled_for = :due where id = :id`, { due, id })
  await jobs.stop()
  expect((await rowOf(id)).status).toBe('scheduled')
  jobs = await startJobs()
  // On a loaded machine the restart itself may outlast the 4 s: then the message is due when the queue is back.
  const restartedAt = Date.now()
  try {
    await waitUntilDone(id, 30_000)
    const row = await rowOf(id)
    const lateMs = new Date(row.queued_at!).getTime() - Math.max(due.getTime(), restartedAt)
    expect(new Date(row.queued_at!).getTime()).toBeGreaterThanOrEqual(due.getTime())
    expect(lateMs).toBeLessThan(1_000)
    expect(row.quota_source).toBe('monthly')
    const arrived = push.received().filter((request) => subscriptions.some((s) => s.endpoint === request.endpoint))
    expect(arrived).toHaveLength(2)
    console.info(
      `scheduled message: released ${lateMs} ms after its time, first push ${Math.min(...arrived.map((r) => r.at)) - due.getTime()} ms`,
    )
  } finally {
    await jobs.stop()
  }
})
