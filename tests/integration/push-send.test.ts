import { expect, test } from 'vitest'
import { stampPass, redeemReward } from '#app/services/cards/stamping.server.ts'
import { NO_QUOTA_LEFT, sendOwnerNotification } from '#app/services/push/push-send.server.ts'
import { TRIAL_LIMITS } from '#app/utils/plan-status.ts'
import { sql } from '#tests/support/auth-api.ts'
import { createDraft, createPushAudience, waitUntilDone } from '#tests/support/push-audience.ts'
import { usePushDelivery } from '#tests/support/push-delivery-harness.ts'

/*
 * The quota is taken once per message and atomically (issue #6): simultaneous sends never exceed it. Holders'
 * automatic pushes on a stamp and on the reward go to that holder only, do not count, and can be turned off.
 */

const endpoint = usePushDelivery()

test('ten sends at once with one message left: exactly one is sent, the others are refused', async () => {
  const { owner, cardId } = await createPushAudience(endpoint, ['ok'])
  // Trial quota, all but one used this month.
  for (let used = 0; used < TRIAL_LIMITS.monthlyPushLimit - 1; used++) {
    await sql(
      `insert into notifications (card_id, user_id, title, body, status, queued_at) values (:cardId, :userId, 'Old', 'Old', 'done', now())`,
      {
        cardId,
        userId: owner.id,
      },
    )
  }
  const drafts = await Promise.all(Array.from({ length: 10 }, () => createDraft(owner.id, cardId)))
  const results = await Promise.all(
    drafts.map((notificationId) => sendOwnerNotification({ ownerId: owner.id, cardId, notificationId })),
  )
  expect(results.filter((result) => result.ok)).toHaveLength(1)
  expect(results.filter((result) => !result.ok).map((result) => !result.ok && [result.status, result.message])).toEqual(
    Array.from({ length: 9 }, () => [403, NO_QUOTA_LEFT]),
  )
  const [queued] = await sql<{ count: number }>(
    `select count(*)::int as count from notifications where user_id = :userId and status <> 'draft' and title <> 'Old'`,
    { userId: owner.id },
  )
  expect(queued!.count).toBe(1)
})

test('pressing Send twice sends once and takes one message', async () => {
  const { owner, cardId } = await createPushAudience(endpoint, ['ok'])
  const notificationId = await createDraft(owner.id, cardId)
  const [first, second] = await Promise.all([
    sendOwnerNotification({ ownerId: owner.id, cardId, notificationId }),
    sendOwnerNotification({ ownerId: owner.id, cardId, notificationId }),
  ])
  expect([first.ok, second.ok]).toEqual([true, true])
  await waitUntilDone(notificationId)
  const [row] = await sql<{ count: number }>(
    `select count(*)::int as count from notifications where user_id = :userId and queued_at is not null`,
    { userId: owner.id },
  )
  expect(row!.count).toBe(1)
})

test('a stamp and the reward push the holder stamped, uncounted; with the card switch off, nothing', async () => {
  const { owner, cardId, passIds, subscriptions } = await createPushAudience(endpoint, ['ok', 'ok'])
  await sql(`update cards set stamps_required = 3 where id = :cardId`, { cardId })
  const [code] = await sql<{ short_code: string }>(`select short_code from passes where id = :passId`, {
    passId: passIds[0],
  })
  const stampedEndpoint = subscriptions[0]!.endpoint
  const payloads = () =>
    endpoint
      .received()
      .filter((request) => request.endpoint === stampedEndpoint)
      .map((request) => JSON.parse(request.payload!) as { title: string; body: string })

  expect((await stampPass({ ownerId: owner.id, cardId, code: code!.short_code })).ok).toBe(true)
  await endpoint.waitFor(() => payloads().length === 1)
  expect(payloads()[0]).toMatchObject({ title: 'Corner Coffee', body: 'You got a stamp: 1 of 3 stamps' })

  expect((await stampPass({ ownerId: owner.id, cardId, code: code!.short_code, count: 2 })).ok).toBe(true)
  await endpoint.waitFor(() => payloads().length === 2)
  expect(payloads()[1]).toMatchObject({ title: 'Corner Coffee', body: 'Reward earned: A free coffee' })
  // Only the holder stamped; none of it counts toward the owner's monthly messages.
  expect(endpoint.received().filter((request) => request.endpoint === subscriptions[1]!.endpoint)).toEqual([])
  const counted = await sql(`select 1 from notifications where user_id = :userId and counts_toward_quota`, {
    userId: owner.id,
  })
  expect(counted).toEqual([])

  // Redeeming is not a stamp: no push. Then the owner turns the pushes off: a stamp sends nothing.
  expect((await redeemReward({ ownerId: owner.id, cardId, passId: passIds[0]! })).ok).toBe(true)
  await sql(`update cards set auto_push = false where id = :cardId`, { cardId })
  expect((await stampPass({ ownerId: owner.id, cardId, code: code!.short_code })).ok).toBe(true)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  expect(payloads()).toHaveLength(2)
  const kinds = await sql<{ kind: string }>(
    `select kind from notifications where card_id = :cardId order by created_at`,
    { cardId },
  )
  expect(kinds.map((row) => row.kind)).toEqual(['stamp', 'reward'])
})
