import { expect, test } from 'vitest'
import { runAutomations } from '#app/services/automations/automation-schedule.server.ts'
import { WELCOME_DELAY_MS } from '#app/utils/automations.ts'
import { scheduleWelcome } from '#models/automatic-messages.server.ts'
import { sql } from '#tests/support/auth-api.ts'
import {
  addDevice,
  addPass,
  automationCard,
  messagesOf,
  setAutomation,
  stamper,
  summaryOf,
} from '#tests/support/automation-fixture.ts'
import { recordEventAt } from '#tests/support/stamp-history.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/*
 * Automatic messages (issue 19): each trigger fires once per holder and occasion. The stamp-time ones ('reward
 * earned', 'one stamp to go') run on the real clock through stampPass; the welcome through the real join route; the
 * time-based ones through runAutomations with a fixed clock over history written at chosen instants. Quiet hours are
 * turned off on these cards (the limits have their own file), so a trigger test does not depend on the hour it runs.
 */

const server = useTestServer()

async function card(options: { timeZone?: string; stampsRequired?: number } = {}) {
  const made = await automationCard(options)
  await sql('update cards set quiet_start = 0, quiet_end = 0 where id = :cardId', { cardId: made.cardId })
  return made
}

const endPlan = (ownerId: string) =>
  sql(`update subscriptions set status = 'ended', trial_ends_at = now() - interval '1 day' where user_id = :ownerId`, {
    ownerId,
  })

test("'reward earned' goes with the owner's words, once per round, after the plan ends too", async () => {
  const { ownerId, cardId } = await card({ stampsRequired: 3 })
  await setAutomation(cardId, 'reward_earned', { title: 'Well done', body: 'Your coffee is ready' })
  await sql(`update cards set auto_push = false where id = :cardId`, { cardId })
  const pass = await addPass(cardId, { channels: ['web', 'apple'] })
  const holder = stamper(ownerId, cardId, pass)
  await holder.stamp()
  // The stamp push is off: nothing for a stamp that does not complete the card.
  expect(await summaryOf(pass.id)).toEqual([])
  await holder.stamp(2)
  const [reward] = await messagesOf(pass.id)
  expect(reward).toMatchObject({ kind: 'reward', status: 'queued', title: 'Well done', body: 'Your coffee is ready' })
  expect(reward!.counts_toward_quota).toBe(false)
  await holder.undo()
  await holder.stamp(2)
  expect(await summaryOf(pass.id)).toEqual(['reward:queued'])

  // The plan ends: the card keeps working, and so does its reward push.
  await endPlan(ownerId)
  await holder.redeem()
  await holder.stamp(3)
  expect(await summaryOf(pass.id)).toEqual(['reward:queued', 'reward:queued'])

  // Turned off: none.
  await setAutomation(cardId, 'reward_earned', { enabled: false })
  await holder.redeem()
  await holder.stamp(3)
  expect(await summaryOf(pass.id)).toEqual(['reward:queued', 'reward:queued'])
})

test("a card without its 'reward earned' row sends today's words; a wallet announces the reward itself", async () => {
  const { ownerId, cardId } = await card({ stampsRequired: 2 })
  const pass = await addPass(cardId, { channels: ['web'] })
  await stamper(ownerId, cardId, pass).stamp(2)
  expect(await messagesOf(pass.id)).toMatchObject([
    { kind: 'reward', title: 'Corner Coffee', body: 'Reward earned: A free coffee' },
  ])
  // Apple's pass says "reward earned" when it changes, and Google is asked to notify with the stamp that earns it: a
  // message on top would tell the holder twice (docs/decisions/043-scheduled-broadcasts-and-audiences.md).
  for (const channels of [['google'], ['apple'], []] as const) {
    const walletOnly = await addPass(cardId, { channels: [...channels] })
    await stamper(ownerId, cardId, walletOnly).stamp(2)
    expect(await messagesOf(walletOnly.id)).toEqual([])
  }
})

test("'one stamp to go' replaces that visit's stamp push, once per round, and counts for the 10-minute limit", async () => {
  const { ownerId, cardId } = await card({ stampsRequired: 4 })
  await setAutomation(cardId, 'one_to_go', { title: 'Almost there', body: 'One more stamp for a free coffee' })
  const pass = await addPass(cardId)
  const holder = stamper(ownerId, cardId, pass)
  const tenMinutesLater = () =>
    sql(`update passes set stamp_push_at = stamp_push_at - interval '10 minutes' where id = :passId`, {
      passId: pass.id,
    })
  await holder.stamp()
  await tenMinutesLater()
  await holder.stamp(2)
  expect(await summaryOf(pass.id)).toEqual(['stamp:queued', 'one_to_go:queued'])
  expect((await messagesOf(pass.id))[1]).toMatchObject({
    title: 'Almost there',
    body: 'One more stamp for a free coffee',
    occasion: 'one_to_go:0',
  })
  // Undo and stamp again within 10 minutes: 'one stamp to go' was this visit's stamp push.
  await holder.undo()
  await holder.stamp(2)
  expect(await summaryOf(pass.id)).toEqual(['stamp:queued', 'one_to_go:queued'])
  // Ten minutes on, the same round: the stamp push as today, no second 'one stamp to go'.
  await tenMinutesLater()
  await holder.undo()
  await holder.stamp(2)
  expect(await summaryOf(pass.id)).toEqual(['stamp:queued', 'one_to_go:queued', 'stamp:queued'])
  await holder.stamp()
  await holder.redeem()
  // A week on (the caps would hold back a second one the same day: the limits' file tests that).
  await tenMinutesLater()
  await sql(`update notifications set queued_at = queued_at - interval '8 days' where pass_id = :passId`, {
    passId: pass.id,
  })
  await holder.stamp(3)
  expect(await summaryOf(pass.id)).toEqual([
    'stamp:queued',
    'one_to_go:queued',
    'stamp:queued',
    'reward:queued',
    'one_to_go:queued',
  ])
  expect((await messagesOf(pass.id))[4]!.occasion).toBe('one_to_go:1')
})

test("over the daily cap 'one stamp to go' is skipped with its reason, spends the occasion, and the stamp push goes", async () => {
  const { ownerId, cardId } = await card({ stampsRequired: 3 })
  await setAutomation(cardId, 'one_to_go')
  await setAutomation(cardId, 'welcome')
  const pass = await addPass(cardId)
  // A welcome went out a moment ago (today, in any zone).
  await scheduleWelcome({ passId: pass.id, delaySeconds: 0 })
  await runAutomations({ now: new Date() })
  expect(await summaryOf(pass.id)).toEqual(['welcome:queued'])
  const holder = stamper(ownerId, cardId, pass)
  await holder.stamp(2)
  // Both rows of the stamp have its transaction's time: compared in order of kind.
  const sorted = async () => (await summaryOf(pass.id)).sort()
  expect(await sorted()).toEqual(['one_to_go:skipped:daily_cap', 'stamp:queued', 'welcome:queued'])
  await sql(`update passes set stamp_push_at = null where id = :passId`, { passId: pass.id })
  await holder.undo()
  await holder.stamp(2)
  expect(await sorted()).toEqual(['one_to_go:skipped:daily_cap', 'stamp:queued', 'stamp:queued', 'welcome:queued'])
})

test("after the plan ends 'one stamp to go' is not sent and the stamp push goes as before", async () => {
  const { ownerId, cardId } = await card({ stampsRequired: 3 })
  await setAutomation(cardId, 'one_to_go')
  await endPlan(ownerId)
  const pass = await addPass(cardId)
  await stamper(ownerId, cardId, pass).stamp(2)
  expect(await summaryOf(pass.id)).toEqual(['stamp:queued'])
})

test('a holder who joins gets the welcome 10 minutes later, once; a pass from before it was turned on gets none', async () => {
  const { cardId } = await card()
  const [{ slug }] = (await sql<{ slug: string }>('select slug from cards where id = :cardId', { cardId })) as [
    { slug: string },
  ]
  const earlier = await addPass(cardId, { joinedAt: '2026-01-01T00:00:00Z' })
  await setAutomation(cardId, 'welcome', { title: 'Welcome', body: 'Collect 5 stamps', enabledAt: new Date() })
  expect(await scheduleWelcome({ passId: earlier.id, delaySeconds: 600 })).toBeNull()

  const joined = await server.fetch(`/c/${slug}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: '',
  })
  expect(joined.status).toBe(303)
  const passId = /\/p\/([0-9a-f-]{36})$/.exec(joined.headers.get('Location') ?? '')![1]!
  const [pass] = await sql<{ created_at: Date }>('select created_at from passes where id = :passId', { passId })
  const [welcome] = await messagesOf(passId)
  expect(welcome).toMatchObject({ kind: 'welcome', status: 'scheduled', occasion: 'welcome', title: 'Welcome' })
  expect(welcome!.scheduled_for!.getTime()).toBe(pass!.created_at.getTime() + WELCOME_DELAY_MS)
  await addDevice(passId, 'web')

  // The database keeps microseconds: the join's millisecond, rounded up.
  const joinedAt = pass!.created_at.getTime() + 1
  await runAutomations({ now: new Date(joinedAt + WELCOME_DELAY_MS - 1000) })
  expect(await summaryOf(passId)).toEqual(['welcome:scheduled'])
  const run = await runAutomations({ now: new Date(joinedAt + WELCOME_DELAY_MS) })
  expect(run.queued).toEqual([welcome!.id])
  expect(await summaryOf(passId)).toEqual(['welcome:queued'])
  expect((await runAutomations({ now: new Date(joinedAt + WELCOME_DELAY_MS * 2) })).queued).toEqual([])
  expect(await scheduleWelcome({ passId, delaySeconds: 600 })).toBeNull()
  expect(await summaryOf(passId)).toEqual(['welcome:queued'])
  expect(await summaryOf(earlier.id)).toEqual([])
})

test('reward waiting goes N days after the earning stamp, once per round, not before', async () => {
  const { cardId } = await card({ stampsRequired: 3 })
  await setAutomation(cardId, 'reward_waiting', { days: 7, body: 'Your coffee is waiting' })
  const pass = await addPass(cardId, { joinedAt: '2026-09-20T10:00:00Z' })
  await recordEventAt(pass, 'stamp', '2026-09-28T10:00:00Z', 2)
  await recordEventAt(pass, 'stamp', '2026-10-01T10:00:00Z', 1)
  expect((await runAutomations({ now: new Date('2026-10-08T09:59:59Z') })).created.reward_waiting).toBe(0)
  const due = await runAutomations({ now: new Date('2026-10-08T10:00:00Z') })
  expect(due.created.reward_waiting).toBe(1)
  expect(await messagesOf(pass.id)).toMatchObject([
    { kind: 'reward_waiting', status: 'queued', occasion: 'reward_waiting:0', body: 'Your coffee is waiting' },
  ])
  expect((await messagesOf(pass.id))[0]!.scheduled_for!.toISOString()).toBe('2026-10-08T10:00:00.000Z')
  expect((await runAutomations({ now: new Date('2026-10-09T10:00:00Z') })).created.reward_waiting).toBe(0)

  // Redeemed and earned again: the next round waits its own 7 days.
  await recordEventAt(pass, 'redeem', '2026-10-10T10:00:00Z')
  await recordEventAt(pass, 'stamp', '2026-10-11T10:00:00Z', 3)
  expect((await runAutomations({ now: new Date('2026-10-17T10:00:00Z') })).created.reward_waiting).toBe(0)
  expect((await runAutomations({ now: new Date('2026-10-18T10:00:00Z') })).created.reward_waiting).toBe(1)
  expect((await messagesOf(pass.id)).map((row) => row.occasion)).toEqual(['reward_waiting:0', 'reward_waiting:1'])

  // Redeemed in time: nothing.
  await recordEventAt(pass, 'redeem', '2026-10-19T10:00:00Z')
  await recordEventAt(pass, 'stamp', '2026-10-20T10:00:00Z', 3)
  await recordEventAt(pass, 'redeem', '2026-10-22T10:00:00Z')
  expect((await runAutomations({ now: new Date('2026-10-27T10:00:00Z') })).created.reward_waiting).toBe(0)
})

test('we miss you goes once per absence, and again after a new visit and a new absence', async () => {
  const { cardId } = await card()
  await setAutomation(cardId, 'we_miss_you', { days: 30 })
  const pass = await addPass(cardId, { joinedAt: '2026-08-01T12:00:00Z' })
  await recordEventAt(pass, 'stamp', '2026-09-01T12:00:00Z')
  const away = await addPass(cardId, { joinedAt: '2026-08-01T12:00:00Z', channels: [] })
  await recordEventAt(away, 'stamp', '2026-09-01T12:00:00Z')

  expect((await runAutomations({ now: new Date('2026-10-01T11:59:00Z') })).created.we_miss_you).toBe(0)
  expect((await runAutomations({ now: new Date('2026-10-01T12:00:00Z') })).created.we_miss_you).toBe(1)
  expect((await runAutomations({ now: new Date('2026-10-02T12:00:00Z') })).created.we_miss_you).toBe(0)
  expect(await messagesOf(pass.id)).toMatchObject([
    { kind: 'we_miss_you', status: 'queued', occasion: `we_miss_you:${Date.parse('2026-09-01T12:00:00Z')}` },
  ])
  // No device on any channel: no occasion.
  expect(await messagesOf(away.id)).toEqual([])

  await recordEventAt(pass, 'stamp', '2026-10-10T08:00:00Z')
  expect((await runAutomations({ now: new Date('2026-11-09T07:59:00Z') })).created.we_miss_you).toBe(0)
  expect((await runAutomations({ now: new Date('2026-11-09T08:00:00Z') })).created.we_miss_you).toBe(1)
  expect(await summaryOf(pass.id)).toEqual(['we_miss_you:queued', 'we_miss_you:queued'])
})

test('turning a kind on does not flood the occasions due before; those due after it go', async () => {
  const { cardId } = await card()
  await setAutomation(cardId, 'we_miss_you', { days: 30, enabledAt: '2026-10-20T00:00:00Z' })
  const long = await addPass(cardId, { joinedAt: '2026-09-01T12:00:00Z' })
  const recent = await addPass(cardId, { joinedAt: '2026-09-25T12:00:00Z' })
  expect((await runAutomations({ now: new Date('2026-10-20T00:00:00Z') })).created.we_miss_you).toBe(0)
  expect((await runAutomations({ now: new Date('2026-10-25T12:00:00Z') })).created.we_miss_you).toBe(1)
  expect(await messagesOf(long.id)).toEqual([])
  expect(await summaryOf(recent.id)).toEqual(['we_miss_you:queued'])

  await setAutomation(cardId, 'reward_waiting', { days: 7, enabledAt: '2026-10-20T00:00:00Z' })
  await recordEventAt(long, 'stamp', '2026-10-01T10:00:00Z', 5)
  expect((await runAutomations({ now: new Date('2026-10-21T00:00:00Z') })).created.reward_waiting).toBe(0)
})

test('an ended plan stops the time-based messages and the welcome, which is skipped and counted', async () => {
  const { ownerId, cardId } = await card()
  await setAutomation(cardId, 'we_miss_you', { days: 30 })
  await setAutomation(cardId, 'welcome')
  const pass = await addPass(cardId, { joinedAt: '2026-09-01T12:00:00Z' })
  await scheduleWelcome({ passId: pass.id, delaySeconds: 600 })
  await endPlan(ownerId)
  const run = await runAutomations({ now: new Date('2026-10-01T12:00:00Z') })
  expect(run.created.we_miss_you).toBe(0)
  expect(run.released.plan_ended).toBe(1)
  expect(await summaryOf(pass.id)).toEqual(['welcome:skipped:plan_ended'])
})

test('a welcome whose kind was turned off, or whose holder has no device left, is cancelled when due', async () => {
  const { cardId } = await card()
  await setAutomation(cardId, 'welcome')
  const off = await addPass(cardId, { joinedAt: '2026-10-01T12:00:00Z' })
  await scheduleWelcome({ passId: off.id, delaySeconds: 600 })
  await setAutomation(cardId, 'welcome', { enabled: false })
  const other = await card()
  await setAutomation(other.cardId, 'welcome')
  const kept = await addPass(other.cardId, { joinedAt: '2026-10-01T12:00:00Z' })
  await scheduleWelcome({ passId: kept.id, delaySeconds: 600 })
  const run = await runAutomations({ now: new Date('2026-10-01T12:10:00Z') })
  expect(run.released).toMatchObject({ turned_off: 1, send: 1 })
  expect(await summaryOf(off.id)).toEqual(['welcome:cancelled'])
  expect(await summaryOf(kept.id)).toEqual(['welcome:queued'])

  // On again, a holder without a device at its due time: cancelled, not counted.
  await setAutomation(cardId, 'welcome')
  const late = await addPass(cardId, { joinedAt: '2026-10-02T12:00:00Z', channels: [] })
  await scheduleWelcome({ passId: late.id, delaySeconds: 600 })
  expect((await runAutomations({ now: new Date('2026-10-02T12:10:00Z') })).released.no_device).toBe(1)
  expect(await summaryOf(late.id)).toEqual(['welcome:cancelled'])
})
