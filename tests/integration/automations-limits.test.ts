import { expect, test } from 'vitest'
import { runAutomations } from '#app/services/automations/automation-schedule.server.ts'
import { planState, type StoredSubscription } from '#app/utils/plan-status.ts'
import { ownerHasAccessSql } from '#models/automatic-messages.server.ts'
import { sql } from '#tests/support/auth-api.ts'
import {
  addPass,
  automationCard,
  messagesOf,
  sentMessage,
  setAutomation,
  stamper,
  summaryOf,
} from '#tests/support/automation-fixture.ts'

/*
 * Caps and quiet hours of automatic messages (issue 19; docs/product/automations.md), in the
 * business's time zone, with a fixed clock: a day is the owner's local calendar day, a week that day and the 6
 * before; a message due in quiet hours waits until their local end, across a change of clocks.
 */

/** A welcome row due at `dueAt` (as pass-join.server.ts schedules it), on a card with the welcome on. */
async function dueWelcome(cardId: string, passId: string, dueAt: string) {
  await setAutomation(cardId, 'welcome')
  await sql(
    `insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota,
                                scheduled_for, occasion)
     select c.id, c.user_id, :passId, 'welcome', 'Welcome', 'Hello', 'scheduled', false, :dueAt, 'welcome'
     from cards c where c.id = :cardId`,
    { cardId, passId, dueAt },
  )
}

const welcomeOf = async (passId: string) =>
  (await messagesOf(passId)).find((row) => row.kind === 'welcome' && row.occasion === 'welcome')!

test('the daily cap counts the business’s local day: either side of midnight in Auckland are two days', async () => {
  // Pacific/Auckland in November is UTC+13: local midnight of 11 November is 10 November 11:00 UTC.
  const { cardId } = await automationCard({ timeZone: 'Pacific/Auckland' })
  await sql('update cards set quiet_start = 0, quiet_end = 0 where id = :cardId', { cardId })
  const dayBefore = await addPass(cardId, { joinedAt: '2026-11-01T00:00:00Z' })
  const sameDay = await addPass(cardId, { joinedAt: '2026-11-01T00:00:00Z' })
  // 23:30 local on the 10th, and 00:10 local on the 11th (both 10 November in UTC).
  await sentMessage(cardId, dayBefore.id, 'we_miss_you', '2026-11-10T10:30:00Z')
  await sentMessage(cardId, sameDay.id, 'we_miss_you', '2026-11-10T11:10:00Z')
  // Due 00:30 local on the 11th.
  await dueWelcome(cardId, dayBefore.id, '2026-11-10T11:30:00Z')
  await dueWelcome(cardId, sameDay.id, '2026-11-10T11:30:00Z')
  const run = await runAutomations({ now: new Date('2026-11-10T11:30:00Z') })
  expect(run.released).toMatchObject({ send: 1, daily_cap: 1 })
  expect(await welcomeOf(dayBefore.id)).toMatchObject({ status: 'queued', skipped_reason: null })
  expect((await welcomeOf(dayBefore.id)).queued_at!.toISOString()).toBe('2026-11-10T11:30:00.000Z')
  expect(await welcomeOf(sameDay.id)).toMatchObject({ status: 'skipped', skipped_reason: 'daily_cap' })
})

test('the weekly cap counts the local day and the 6 before it; the owner may lower the caps', async () => {
  // America/New_York in November (after the change) is UTC−5.
  const { cardId } = await automationCard({ timeZone: 'America/New_York' })
  await sql('update cards set quiet_start = 0, quiet_end = 0 where id = :cardId', { cardId })
  const full = await addPass(cardId, { joinedAt: '2026-11-01T12:00:00Z' })
  const justOutside = await addPass(cardId, { joinedAt: '2026-11-01T12:00:00Z' })
  // The release is at 12:00 local on 20 November: its week starts at 00:00 local on the 14th (05:00 UTC).
  for (const at of ['2026-11-14T05:00:00Z', '2026-11-16T15:00:00Z', '2026-11-18T15:00:00Z']) {
    await sentMessage(cardId, full.id, 'reward_waiting', at)
  }
  // 23:59 local on the 13th (04:59 UTC on the 14th) is the day before the week.
  for (const at of ['2026-11-14T04:59:00Z', '2026-11-16T15:00:00Z', '2026-11-18T15:00:00Z']) {
    await sentMessage(cardId, justOutside.id, 'we_miss_you', at)
  }
  await dueWelcome(cardId, full.id, '2026-11-20T17:00:00Z')
  await dueWelcome(cardId, justOutside.id, '2026-11-20T17:00:00Z')
  await runAutomations({ now: new Date('2026-11-20T17:00:00Z') })
  expect(await welcomeOf(full.id)).toMatchObject({ status: 'skipped', skipped_reason: 'weekly_cap' })
  expect(await welcomeOf(justOutside.id)).toMatchObject({ status: 'queued' })

  // Lowered to 2 a week: the second holder's next one is over it (the welcome just sent is the third).
  await sql('update cards set automatic_weekly_cap = 2 where id = :cardId', { cardId })
  const lowered = await addPass(cardId, { joinedAt: '2026-11-01T12:00:00Z' })
  await sentMessage(cardId, lowered.id, 'one_to_go', '2026-11-16T15:00:00Z')
  await sentMessage(cardId, lowered.id, 'one_to_go', '2026-11-17T15:00:00Z')
  await dueWelcome(cardId, lowered.id, '2026-11-20T17:00:00Z')
  await runAutomations({ now: new Date('2026-11-20T17:00:00Z') })
  expect(await welcomeOf(lowered.id)).toMatchObject({ status: 'skipped', skipped_reason: 'weekly_cap' })
  // A daily cap of 0: none at all.
  await sql('update cards set automatic_daily_cap = 0 where id = :cardId', { cardId })
  const none = await addPass(cardId, { joinedAt: '2026-11-01T12:00:00Z' })
  await dueWelcome(cardId, none.id, '2026-11-20T17:00:00Z')
  await runAutomations({ now: new Date('2026-11-20T17:00:00Z') })
  expect(await welcomeOf(none.id)).toMatchObject({ status: 'skipped', skipped_reason: 'daily_cap' })
})

test('a message due at 22:00 in New York before the clocks go back waits until 09:00 local after (14:00 UTC)', async () => {
  // 2026-11-01 02:00 EDT → 01:00 EST. 22:00 EDT on 31 October is 02:00 UTC; 09:00 EST on 1 November is 14:00 UTC.
  const { cardId } = await automationCard({ timeZone: 'America/New_York' })
  const pass = await addPass(cardId, { joinedAt: '2026-10-31T01:50:00Z' })
  await dueWelcome(cardId, pass.id, '2026-11-01T02:00:00Z')
  const run = await runAutomations({ now: new Date('2026-11-01T02:00:00Z') })
  expect(run.released.quiet).toBe(1)
  const waiting = await welcomeOf(pass.id)
  expect(waiting.status).toBe('scheduled')
  expect(waiting.scheduled_for!.toISOString()).toBe('2026-11-01T14:00:00.000Z')
  expect((await runAutomations({ now: new Date('2026-11-01T13:59:00Z') })).queued).toEqual([])
  expect((await runAutomations({ now: new Date('2026-11-01T14:00:00Z') })).queued).toEqual([waiting.id])
  expect((await welcomeOf(pass.id)).queued_at!.toISOString()).toBe('2026-11-01T14:00:00.000Z')
})

test('Berlin: due at 22:00 before the change waits until 09:00 CET (08:00 UTC); due at 06:00 waits until 09:00 that day', async () => {
  // 2026-10-25 03:00 CEST → 02:00 CET. 22:00 CEST on the 24th is 20:00 UTC; 09:00 CET on the 25th is 08:00 UTC.
  const { cardId } = await automationCard({ timeZone: 'Europe/Berlin' })
  const evening = await addPass(cardId, { joinedAt: '2026-10-24T19:50:00Z' })
  const morning = await addPass(cardId, { joinedAt: '2026-10-24T19:50:00Z' })
  await dueWelcome(cardId, evening.id, '2026-10-24T20:00:00Z')
  await runAutomations({ now: new Date('2026-10-24T20:00:00Z') })
  expect((await welcomeOf(evening.id)).scheduled_for!.toISOString()).toBe('2026-10-25T08:00:00.000Z')
  // 06:00 CET on the 26th is 05:00 UTC; 09:00 CET 08:00 UTC.
  await dueWelcome(cardId, morning.id, '2026-10-26T05:00:00Z')
  await runAutomations({ now: new Date('2026-10-26T05:00:00Z') })
  expect((await welcomeOf(morning.id)).scheduled_for!.toISOString()).toBe('2026-10-26T08:00:00.000Z')
  // Owner's own hours, 13:00–15:00 (no midnight): due at 14:00 CET waits until 15:00 CET.
  await sql('update cards set quiet_start = 780, quiet_end = 900 where id = :cardId', { cardId })
  const afternoon = await addPass(cardId, { joinedAt: '2026-10-26T12:00:00Z' })
  await dueWelcome(cardId, afternoon.id, '2026-10-26T13:00:00Z')
  await runAutomations({ now: new Date('2026-10-26T13:00:00Z') })
  expect((await welcomeOf(afternoon.id)).scheduled_for!.toISOString()).toBe('2026-10-26T14:00:00.000Z')
})

test("'one stamp to go' and 'reward earned' go at once in quiet hours", async () => {
  const { ownerId, cardId } = await automationCard({ stampsRequired: 3 })
  // Quiet the whole day long (00:00–23:59).
  await sql('update cards set quiet_start = 0, quiet_end = 1439 where id = :cardId', { cardId })
  await setAutomation(cardId, 'one_to_go')
  const pass = await addPass(cardId)
  const holder = stamper(ownerId, cardId, pass)
  await holder.stamp(2)
  await holder.stamp()
  expect(await summaryOf(pass.id)).toEqual(['one_to_go:queued', 'reward:queued'])
})

test('the owner’s access in SQL is planState’s, for every stored state', async () => {
  const now = new Date('2026-11-20T12:00:00Z')
  const day = 24 * 60 * 60 * 1000
  const at = (days: number) => new Date(now.getTime() + days * day)
  const cases: Array<Pick<StoredSubscription, 'status' | 'trialEndsAt' | 'periodEndsAt' | 'accessEndsAt'>> = [
    { status: 'trial', trialEndsAt: at(1), periodEndsAt: null, accessEndsAt: null },
    { status: 'trial', trialEndsAt: at(-1), periodEndsAt: null, accessEndsAt: null },
    { status: 'active', trialEndsAt: at(-30), periodEndsAt: at(3), accessEndsAt: null },
    { status: 'active', trialEndsAt: at(-30), periodEndsAt: at(-3), accessEndsAt: null },
    { status: 'active', trialEndsAt: at(-30), periodEndsAt: at(-8), accessEndsAt: null },
    { status: 'active', trialEndsAt: at(-30), periodEndsAt: null, accessEndsAt: null },
    { status: 'cancelled', trialEndsAt: at(-30), periodEndsAt: at(2), accessEndsAt: null },
    { status: 'cancelled', trialEndsAt: at(-30), periodEndsAt: at(-2), accessEndsAt: null },
    { status: 'waiting_payment', trialEndsAt: at(-30), periodEndsAt: at(-1), accessEndsAt: at(6) },
    { status: 'waiting_payment', trialEndsAt: at(5), periodEndsAt: null, accessEndsAt: at(5) },
    { status: 'waiting_payment', trialEndsAt: at(-30), periodEndsAt: at(-9), accessEndsAt: at(-2) },
    { status: 'waiting_payment', trialEndsAt: at(-30), periodEndsAt: null, accessEndsAt: null },
    { status: 'ended', trialEndsAt: at(-30), periodEndsAt: at(-30), accessEndsAt: null },
  ]
  const { ownerId } = await automationCard()
  for (const stored of cases) {
    await sql(
      `update subscriptions set status = :status, trial_ends_at = :trialEndsAt, period_ends_at = :periodEndsAt,
         access_ends_at = :accessEndsAt where user_id = :ownerId`,
      { ...stored, ownerId },
    )
    const [row] = await sql<{ access: boolean }>(
      `select ${ownerHasAccessSql('cast(:now as timestamptz)')} as access
       from users u left join subscriptions s on s.user_id = u.id where u.id = :ownerId`,
      { ownerId, now },
    )
    const expected = planState(
      { ...stored, periodStartsAt: null, periodMonths: null, additionalQuota: 0, tariff: null },
      now,
    )
    expect({ ...stored, access: row!.access }).toEqual({ ...stored, access: expected.subActiveFlag === 1 })
  }
})
