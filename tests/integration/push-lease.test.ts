import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { deliverChunk, prepareNotification, PUSH_CONCURRENCY } from '#app/services/push/push-delivery.server.ts'
import { sendOwnerNotification } from '#app/services/push/push-send.server.ts'
import { sql } from '#tests/support/auth-api.ts'
import { createDraft, createPushAudience } from '#tests/support/push-audience.ts'
import { startPushEndpoint, type PushEndpoint } from '#tests/support/push-endpoint.ts'

/*
 * A live chunk keeps the rows it claimed (docs/decisions/017-push-delivery.md): a lease that runs out means a dead
 * holder, not a slow one. On a starved machine (CI at the start of a run) a claimed row waited longer than the lease
 * for its request slot; the chunk's next claim took it again and the holder got the message twice. Here the lease
 * is shorter than one request (the push service answers after LATENCY_MS), as the starved machine made it, and no
 * job queue runs: the test drives one chunk.
 */

const LEASE_SECONDS = 4
const LATENCY_MS = 6_000
const HOLDERS = 2 * PUSH_CONCURRENCY

let endpoint: PushEndpoint

beforeAll(async () => {
  endpoint = await startPushEndpoint({ latencyMs: LATENCY_MS })
})

beforeEach(() => endpoint.reset())

afterAll(async () => {
  await endpoint?.close()
})

/** A message to HOLDERS devices, its deliveries made (one chunk): nothing sends it until the test does. */
async function preparedMessage() {
  const { owner, cardId, subscriptions } = await createPushAudience(
    endpoint,
    Array.from({ length: HOLDERS }, () => 'ok' as const),
  )
  const notificationId = await createDraft(owner.id, cardId)
  expect((await sendOwnerNotification({ ownerId: owner.id, cardId, notificationId })).ok).toBe(true)
  const ranges = await prepareNotification(notificationId)
  expect(ranges).toHaveLength(1)
  return { notificationId, subscriptions, range: ranges[0]! }
}

const deliveryRows = (notificationId: string) =>
  sql<{ id: string; status: string; attempts: number }>(
    `select id::text, status, attempts from deliveries where notification_id = :notificationId order by id`,
    { notificationId },
  )

function expectEachReceivedOnce(subscriptions: { endpoint: string }[]) {
  const perSubscription = endpoint.deliveriesBySubscription()
  expect(
    subscriptions
      .map((subscription) => ({
        endpoint: subscription.endpoint,
        received: perSubscription.get(subscription.endpoint),
      }))
      .filter(({ received }) => received !== 1),
  ).toEqual([])
  expect(endpoint.requests()).toHaveLength(HOLDERS)
}

test(
  'rows that wait for a slot longer than the lease are still sent once: the chunk renews what it holds',
  { timeout: 60_000 },
  async () => {
    const { notificationId, subscriptions, range } = await preparedMessage()
    // The first claim's requests take LATENCY_MS; the second claim waits for their slots meanwhile, past its lease.
    await deliverChunk(range, { leaseSeconds: LEASE_SECONDS })

    expectEachReceivedOnce(subscriptions)
    const rows = await deliveryRows(notificationId)
    expect(rows.filter((row) => row.status !== 'sent' || row.attempts !== 1)).toEqual([])
  },
)

test(
  'a row another claim took while it waited is not sent by the first holder: the claim that holds it sends it',
  { timeout: 60_000 },
  async () => {
    const { notificationId, subscriptions, range } = await preparedMessage()
    const delivering = deliverChunk(range, { leaseSeconds: LEASE_SECONDS })
    // Both claims made (the second as soon as the slots took half of the first): the first is in flight.
    await expect
      .poll(async () => (await deliveryRows(notificationId)).filter((row) => row.attempts === 1).length, {
        timeout: 10_000,
        interval: 50,
      })
      .toBe(HOLDERS)
    // The waiting half is taken, as a claim of another process would (attempts + 1) whose holder then died: its
    // 2-second lease runs out, and the rows are claimed again.
    const waiting = (await deliveryRows(notificationId)).slice(PUSH_CONCURRENCY).map((row) => row.id)
    await sql(
      `update deliveries set attempts = attempts + 1, lease_until = now() + interval '2 seconds' where id in (:waiting)`,
      { waiting },
    )
    await delivering

    expectEachReceivedOnce(subscriptions)
    const rows = await deliveryRows(notificationId)
    expect(rows.filter((row) => row.status !== 'sent')).toEqual([])
    // The first holder's claim, the other process's, and the claim that sent them.
    expect(rows.filter((row) => waiting.includes(row.id)).map((row) => row.attempts)).toEqual(waiting.map(() => 3))
  },
)
