import { expect, test } from 'vitest'
import { redeemReward, stampPass, undoLastStamp } from '#app/services/cards/stamping.server.ts'
import { sql } from '#tests/support/auth-api.ts'
import { createPushAudience } from '#tests/support/push-audience.ts'
import { usePushDelivery } from '#tests/support/push-delivery-harness.ts'

/*
 * Automatic pushes are not a free broadcast (issue 14, item 8; docs/product/automations.md):
 * at most one stamp push per pass in 10 minutes and one reward push per pass per round, however often the owner
 * stamps and undoes. Delivered through the local push service (tests/support/push-endpoint.ts) by the job queue.
 */

const endpoint = usePushDelivery()

/** An owner's card needing `stampsRequired` stamps, and one holder with a subscribed device. */
async function holder(stampsRequired: number) {
  const { owner, cardId, passIds, subscriptions } = await createPushAudience(endpoint, ['ok'])
  await sql(`update cards set stamps_required = :stampsRequired where id = :cardId`, { cardId, stampsRequired })
  const passId = passIds[0]!
  const [pass] = await sql<{ short_code: string }>(`select short_code from passes where id = :passId`, { passId })
  const bodies = () =>
    endpoint
      .received()
      .filter((request) => request.endpoint === subscriptions[0]!.endpoint)
      .map((request) => (JSON.parse(request.payload!) as { body: string }).body)
  const queued = async () =>
    (
      await sql<{ kind: string }>(`select kind from notifications where pass_id = :passId order by created_at`, {
        passId,
      })
    ).map((row) => row.kind)
  const args = { ownerId: owner.id, cardId }
  return {
    passId,
    bodies,
    queued,
    stamp: async (count = 1) => expect((await stampPass({ ...args, code: pass!.short_code, count })).ok).toBe(true),
    undo: async () => expect((await undoLastStamp({ ...args, passId })).ok).toBe(true),
    redeem: async () => expect((await redeemReward({ ...args, passId })).ok).toBe(true),
  }
}

/** Gives the job queue time to send anything it was (wrongly) given. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500))

test('stamp → undo → stamp again on the reward stamp sends the reward push once per round', async () => {
  const pass = await holder(3)
  await pass.stamp(2)
  await endpoint.waitFor(() => pass.bodies().length === 1)
  await pass.stamp()
  await endpoint.waitFor(() => pass.bodies().length === 2)
  expect(pass.bodies()).toEqual(['You got 2 stamps: 2 of 3 stamps', 'Reward earned: A free coffee'])

  // The loop an owner with no quota used to broadcast "Reward earned: FLASH SALE…".
  for (let loop = 0; loop < 3; loop++) {
    await pass.undo()
    await pass.stamp()
  }
  await settle()
  expect(pass.bodies()).toEqual(['You got 2 stamps: 2 of 3 stamps', 'Reward earned: A free coffee'])
  expect(await pass.queued()).toEqual(['stamp', 'reward'])

  // Redeemed, the next round's reward is pushed again (its stamps within 10 minutes of the last stamp push: none).
  await pass.redeem()
  await pass.stamp(3)
  await endpoint.waitFor(() => pass.bodies().length === 3)
  expect(pass.bodies()[2]).toBe('Reward earned: A free coffee')
  expect(await pass.queued()).toEqual(['stamp', 'reward', 'reward'])
})

test('two stamps within 10 minutes send one stamp push; after 10 minutes the next is sent', async () => {
  const pass = await holder(10)
  await pass.stamp()
  await endpoint.waitFor(() => pass.bodies().length === 1)
  await pass.stamp()
  await pass.undo()
  await pass.stamp(2)
  await settle()
  expect(pass.bodies()).toEqual(['You got a stamp: 1 of 10 stamps'])

  // Ten minutes later (the pass's last stamp push moved back: the limit is kept in the database, for every process).
  await sql(`update passes set stamp_push_at = stamp_push_at - interval '10 minutes' where id = :passId`, {
    passId: pass.passId,
  })
  await pass.stamp()
  await endpoint.waitFor(() => pass.bodies().length === 2)
  expect(pass.bodies()[1]).toBe('You got a stamp: 4 of 10 stamps')
  expect(await pass.queued()).toEqual(['stamp', 'stamp'])
})
