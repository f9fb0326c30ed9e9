import { expect, test } from 'vitest'
import { AUTOMATIONS_QUEUE } from '#app/server/job-queue.server.ts'
import { runAutomations } from '#app/services/automations/automation-schedule.server.ts'
import { stampPass } from '#app/services/cards/stamping.server.ts'
import { scheduleWelcome } from '#models/automatic-messages.server.ts'
import { sql } from '#tests/support/auth-api.ts'
import { setAutomation } from '#tests/support/automation-fixture.ts'
import { createPushAudience, waitUntilDone } from '#tests/support/push-audience.ts'
import { usePushDelivery } from '#tests/support/push-delivery-harness.ts'
import type PgBoss from 'pg-boss'

/*
 * Released automatic messages reach the holder's device end to end (issue 19): the schedule queues them and asks the
 * push job, which delivers to the local push service (tests/support/push-endpoint.ts) that decrypts what it gets.
 */

const endpoint = usePushDelivery()

const bodiesAt = (subscriptionEndpoint: string) =>
  endpoint
    .received()
    .filter((request) => request.endpoint === subscriptionEndpoint)
    .map((request) => (JSON.parse(request.payload!) as { title: string; body: string }).body)

test('a released welcome and a one stamp to go reach the holder’s web push device', async () => {
  const { owner, cardId, passIds, subscriptions } = await createPushAudience(endpoint, ['ok'])
  await sql('update cards set quiet_start = 0, quiet_end = 0, stamps_required = 3 where id = :cardId', { cardId })
  await setAutomation(cardId, 'welcome', { title: 'Welcome', body: 'Glad to have you' })
  await setAutomation(cardId, 'one_to_go', { title: 'Almost', body: 'One stamp to go' })
  const passId = passIds[0]!
  await scheduleWelcome({ passId, delaySeconds: 0 })
  const run = await runAutomations({ now: new Date() })
  expect(run.queued).toHaveLength(1)
  await waitUntilDone(run.queued[0]!)
  expect(bodiesAt(subscriptions[0]!.endpoint)).toEqual(['Glad to have you'])

  // A week on (the daily cap holds one a day), the stamp that leaves one goes as 'one stamp to go'.
  await sql(`update notifications set queued_at = queued_at - interval '8 days' where pass_id = :passId`, { passId })
  const [pass] = await sql<{ short_code: string }>('select short_code from passes where id = :passId', { passId })
  expect((await stampPass({ ownerId: owner.id, cardId, code: pass!.short_code, count: 2 })).ok).toBe(true)
  await endpoint.waitFor(() => bodiesAt(subscriptions[0]!.endpoint).length === 2)
  expect(bodiesAt(subscriptions[0]!.endpoint)).toEqual(['Glad to have you', 'One stamp to go'])
})

test('the job queue runs the schedule: a due welcome goes without anyone calling it', async () => {
  const { cardId, passIds, subscriptions } = await createPushAudience(endpoint, ['ok'])
  await sql('update cards set quiet_start = 0, quiet_end = 0 where id = :cardId', { cardId })
  await setAutomation(cardId, 'welcome', { body: 'Sent by the schedule' })
  await scheduleWelcome({ passId: passIds[0]!, delaySeconds: 0 })
  // The minute's cron job, asked for now (the queue startJobs started for this file).
  const boss = (globalThis as { [key: symbol]: PgBoss })[Symbol.for('stampwise.jobs')]!
  await boss.send(AUTOMATIONS_QUEUE, {})
  await endpoint.waitFor(() => bodiesAt(subscriptions[0]!.endpoint).length === 1, 20_000)
  expect(bodiesAt(subscriptions[0]!.endpoint)).toEqual(['Sent by the schedule'])
})
