import crypto from 'node:crypto'
import { expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { up } from '#migrations/0007-push-hardening.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'

/*
 * Migration 0007 on rows saved before it (issue 14, items 1 and 8): subscriptions whose endpoint is not in its
 * normal form or not on a push service are removed; passes learn their last stamp push and the round whose reward
 * was pushed from the pushes already made. The rows are written as the old code could have written them, then the
 * migration's up() runs on them (its statements are safe to run on a database that has it already).
 */

const runMigration = () =>
  getSequelize().transaction((transaction) => up({ context: { sequelize: getSequelize(), transaction } }))

async function seedCard() {
  const owner = await createOwner()
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, stamps_required) values (:userId, :slug, 'active', 'Coffee card', 8) returning id`,
    { userId: owner.id, slug: `mig-${crypto.randomBytes(5).toString('hex')}` },
  )
  const pass = async (code: string, rewardsRedeemed = 0) =>
    (
      await sql<{ id: string }>(
        `insert into passes (card_id, short_code, rewards_redeemed) values (:cardId, :code, :rewardsRedeemed) returning id`,
        {
          cardId: card!.id,
          code,
          rewardsRedeemed,
        },
      )
    )[0]!.id
  return { ownerId: owner.id, cardId: card!.id, pass }
}

test('subscriptions that fail the endpoint rule are removed, the others kept', async () => {
  const previous = process.env.PUSH_ALLOWED_HOSTS
  process.env.PUSH_ALLOWED_HOSTS = 'localhost:4433'
  try {
    const { pass } = await seedCard()
    const passId = await pass('MGSUBSAA')
    const kept = [
      'https://fcm.googleapis.com/fcm/send/abc:def',
      'https://web.push.apple.com/QGx9',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
      'https://localhost:4433/push/abc',
    ]
    const removed = [
      ...['{', '}', ';', "'", '"', '`'].map((character) => `https://localhost${character}.push.apple.com/x`),
      'https://FCM.googleapis.com/fcm/send/upper',
      'https://fcm.googleapis.com:443/fcm/send/port',
      'https://evil.example/push',
      'http://fcm.googleapis.com/fcm/send/plain',
      'https://localhost:4434/push/other-port',
      'not an address',
    ]
    await sql(
      `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) select :passId, endpoint, 'p256dh', 'auth' from unnest(array[:endpoints]::text[]) as e(endpoint)`,
      { passId, endpoints: [...kept, ...removed] },
    )
    await runMigration()
    const rows = await sql<{ endpoint: string }>(`select endpoint from push_subscriptions where pass_id = :passId`, {
      passId,
    })
    expect(rows.map((row) => row.endpoint).sort()).toEqual([...kept].sort())
  } finally {
    process.env.PUSH_ALLOWED_HOSTS = previous
  }
})

test('passes take their last stamp push and their pushed reward round from the pushes already made', async () => {
  const { ownerId, cardId, pass } = await seedCard()
  const recentStamp = await pass('MGSTMPAA')
  const oldStamp = await pass('MGSTMPBB')
  const rewardThisRound = await pass('MGRWRDAA', 1)
  const rewardLastRound = await pass('MGRWRDBB', 1)
  const push = (passId: string, kind: 'stamp' | 'reward', ago: string) =>
    sql(
      `insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at, created_at)
       values (:cardId, :ownerId, :passId, :kind, 'Corner Coffee', 'Pushed', 'done', false, now() - cast(:ago as interval), now() - cast(:ago as interval))`,
      { cardId, ownerId, passId, kind, ago },
    )
  const redeem = (passId: string, ago: string) =>
    sql(
      `insert into stamp_events (pass_id, card_id, actor_id, kind, count, created_at) values (:passId, :cardId, :ownerId, 'redeem', 1, now() - cast(:ago as interval))`,
      {
        passId,
        cardId,
        ownerId,
        ago,
      },
    )
  await push(recentStamp, 'stamp', '3 minutes')
  await push(oldStamp, 'stamp', '2 hours')
  await redeem(rewardThisRound, '1 hour')
  await push(rewardThisRound, 'reward', '10 minutes')
  await push(rewardLastRound, 'reward', '2 hours')
  await redeem(rewardLastRound, '1 hour')

  await runMigration()
  const rows = await sql<{ id: string; recent_stamp: boolean | null; reward_push_round: number | null }>(
    `select id, stamp_push_at > now() - interval '4 minutes' as recent_stamp, reward_push_round from passes where card_id = :cardId`,
    { cardId },
  )
  const byId = Object.fromEntries(rows.map(({ id, ...row }) => [id, row]))
  expect(byId[recentStamp]).toEqual({ recent_stamp: true, reward_push_round: null })
  expect(byId[oldStamp]).toEqual({ recent_stamp: null, reward_push_round: null })
  expect(byId[rewardThisRound]).toEqual({ recent_stamp: null, reward_push_round: 1 })
  expect(byId[rewardLastRound]).toEqual({ recent_stamp: null, reward_push_round: null })
})
