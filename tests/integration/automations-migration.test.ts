import crypto from 'node:crypto'
import { expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { defaultAutomation } from '#app/utils/automations.ts'
import { down, up } from '#migrations/0013-automations.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'

/*
 * Migration 0013's back-fill (issue 19): a card whose owner had turned automatic pushes off had no reward push
 * either, so it gets a 'reward earned' row that is off, with the words the push had (defaultAutomation's); every other
 * card gets no row and keeps its reward push (the default, on). The migration is taken down on this file's own
 * database, cards are written as before it, and it runs up again.
 */

const inTransaction = (step: typeof up) =>
  getSequelize().transaction((transaction) => step({ context: { sequelize: getSequelize(), transaction } }))

test('cards with automatic pushes off get a disabled reward earned row with their words; others none', async () => {
  await inTransaction(down)
  const owner = await createOwner()
  const card = async (autoPush: boolean, words: { title: string; businessName: string; reward: string }) => {
    const [row] = await sql<{ id: string }>(
      `insert into cards (user_id, slug, status, title, business_name, reward, stamps_required, auto_push)
       values (:userId, :slug, 'active', :title, :businessName, :reward, 8, :autoPush) returning id`,
      { userId: owner.id, slug: `mig-${crypto.randomBytes(5).toString('hex')}`, autoPush, ...words },
    )
    return { id: row!.id, ...words }
  }
  const off = await card(false, { title: 'Coffee card', businessName: 'Corner Coffee', reward: 'A free coffee' })
  const offBare = await card(false, { title: '', businessName: '', reward: '' })
  const offLong = await card(false, { title: 'Card', businessName: 'B'.repeat(60), reward: 'R'.repeat(120) })
  const on = await card(true, { title: 'Coffee card', businessName: 'Corner Coffee', reward: 'A free coffee' })
  await inTransaction(up)

  const rows = await sql<{ card_id: string; kind: string; enabled: boolean; title: string; body: string }>(
    `select card_id, kind, enabled, title, body from card_automations where card_id in (:ids)`,
    { ids: [off.id, offBare.id, offLong.id, on.id] },
  )
  const expected = [off, offBare, offLong].map((made) => {
    const words = defaultAutomation('reward_earned', { ...made, stampsRequired: 8 })
    return { card_id: made.id, kind: 'reward_earned', enabled: false, title: words.title, body: words.body }
  })
  expect(rows.sort((a, b) => a.card_id.localeCompare(b.card_id))).toEqual(
    expected.sort((a, b) => a.card_id.localeCompare(b.card_id)),
  )
  expect(rows.find((row) => row.card_id === offBare.id)).toMatchObject({
    title: 'Stampwise',
    body: 'Reward earned: your reward',
  })
})
