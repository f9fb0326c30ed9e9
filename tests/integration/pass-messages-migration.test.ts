import { expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { down, up } from '#migrations/0019-pass-messages.ts'
import { getApplePassRow } from '#models/apple-pass.server.ts'
import { getPassView } from '#models/pass.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { createWalletCard, createWalletPass } from '#tests/support/wallet-device.ts'

/*
 * Migration 0019 (issue 30, item 1): the messages sent before it are on the holders' pages after it. The migration is
 * taken down on this file's own database, messages are written as before it, and it runs up again.
 */
const inTransaction = (step: typeof up) =>
  getSequelize().transaction((transaction) => step({ context: { sequelize: getSequelize(), transaction } }))

async function message(
  card: { ownerId: string; cardId: string },
  body: string,
  {
    minutesAgo,
    audience = 'all',
    passId = null,
    kind = 'message',
    status = 'done',
  }: { minutesAgo: number; audience?: string; passId?: string | null; kind?: string; status?: string },
) {
  const [row] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, pass_id, kind, status, title, body, audience, queued_at)
     values (:cardId, :ownerId, :passId, :kind, :status, 'News', :body, :audience,
       now() - make_interval(mins => :minutesAgo))
     returning id`,
    { ...card, body, audience, passId, kind, status, minutesAgo },
  )
  return row!.id
}

const shown = async (passId: string) => (await getPassView(passId))!.latestMessage?.body ?? null

test("each pass shows the newest of its card's message to all and the messages it was sent itself", async () => {
  await inTransaction(down)
  const owner = await createOwner()
  const card = { ownerId: owner.id, cardId: await createWalletCard(owner.id) }
  const [plain, automatic, inAudience, quiet] = [
    await createWalletPass(card.cardId),
    await createWalletPass(card.cardId),
    await createWalletPass(card.cardId, 4),
    await createWalletPass(card.cardId),
  ]
  await message(card, 'Older news to all', { minutesAgo: 60 })
  await message(card, 'News to all', { minutesAgo: 30 })
  await message(card, 'A draft to all', { minutesAgo: 1, status: 'draft' })
  await message(card, 'We miss you', { minutesAgo: 10, passId: automatic.id, kind: 'we_miss_you' })
  await message(card, '4 of 5 stamps', { minutesAgo: 5, passId: plain.id, kind: 'stamp' })
  // A broadcast to an audience, known by the delivery to the pass's browser.
  const segment = await message(card, 'One to go!', { minutesAgo: 20, audience: 'one_to_go' })
  const [subscription] = await sql<{ id: string }>(
    `insert into push_subscriptions (pass_id, endpoint, p256dh, auth)
     values (:passId, 'https://push.example/one', 'key', 'auth') returning id`,
    { passId: inAudience.id },
  )
  await sql(
    `insert into deliveries (notification_id, push_subscription_id, status) values (:segment, :subscription, 'sent')`,
    { segment, subscription: subscription!.id },
  )
  // A holder who joined later sees the card's latest message to all, as Apple Wallet showed it before.
  const joinedLater = await createWalletPass(card.cardId)

  await inTransaction(up)

  expect(await shown(plain.id)).toBe('News to all')
  expect(await shown(automatic.id)).toBe('We miss you')
  // Sent 20 minutes ago, after the message to all (30 minutes ago): the newer of the two.
  expect(await shown(inAudience.id)).toBe('One to go!')
  expect(await shown(quiet.id)).toBe('News to all')
  expect(await shown(joinedLater.id)).toBe('News to all')
  expect((await getApplePassRow(automatic.id))!.latestMessage).toBe('We miss you')

  const otherOwner = await createOwner()
  const fresh = await createWalletPass(await createWalletCard(otherOwner.id))
  expect(await shown(fresh.id)).toBeNull()
})
