import crypto from 'node:crypto'
import { expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { down, up } from '#migrations/0015-removed-staff-and-pauses.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'

/*
 * Migration 0015 (issue 20's review): a removed staff member's Google subject no longer blocks the same person's
 * next account, and passes whose newest stamp was undone before 0014 pause from their last stamp that stands. The
 * migration is taken down on this file's own database, rows are written as before it, and it runs up again.
 */

const inTransaction = (step: typeof up) =>
  getSequelize().transaction((transaction) => step({ context: { sequelize: getSequelize(), transaction } }))

const shortCode = () =>
  Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join('')
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000)

test('a removed member’s Google subject is free for a new account; a live one stays unique', async () => {
  await inTransaction(down)
  const owner = await createOwner()
  const subject = `google-${crypto.randomUUID()}`
  await sql(
    `insert into users (email, role, employer_id, staff_name, removed_at, google_subject, email_confirmed_at)
     values (:email, 'staff', :ownerId, 'Ann', now(), :subject, now())`,
    { email: `ann-${crypto.randomUUID()}@example.com`, ownerId: owner.id, subject },
  )
  const newAccount = () =>
    sql(`insert into users (email, google_subject, email_confirmed_at) values (:email, :subject, now())`, {
      email: `ann-${crypto.randomUUID()}@example.com`,
      subject,
    })
  // Before: the removed row still holds the subject.
  await expect(newAccount()).rejects.toMatchObject({ name: 'SequelizeUniqueConstraintError' })
  await inTransaction(up)
  await newAccount()
  // Among users not removed the subject is still unique.
  await expect(newAccount()).rejects.toMatchObject({ name: 'SequelizeUniqueConstraintError' })
})

test('a pass whose newest stamp was undone pauses from the stamp before it; others keep their time', async () => {
  const owner = await createOwner()
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, reward, stamps_required)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 'A coffee', 8) returning id`,
    { userId: owner.id, slug: `mig-${crypto.randomBytes(5).toString('hex')}` },
  )
  const pass = async (stamps: { at: Date; undone?: boolean }[], lastStampedAt: Date | null) => {
    const [row] = await sql<{ id: string }>(
      `insert into passes (card_id, short_code, last_stamped_at) values (:cardId, :code, :lastStampedAt) returning id`,
      { cardId: card!.id, code: shortCode(), lastStampedAt },
    )
    for (const stamp of stamps) {
      await sql(
        `insert into stamp_events (card_id, pass_id, kind, count, created_at, undone_at)
         values (:cardId, :passId, 'stamp', 1, :at, :undoneAt)`,
        { cardId: card!.id, passId: row!.id, at: stamp.at, undoneAt: stamp.undone ? stamp.at : null },
      )
    }
    return row!.id
  }
  const earlier = hoursAgo(3)
  const later = hoursAgo(1)
  const undoneLast = await pass([{ at: earlier }, { at: hoursAgo(1), undone: true }], hoursAgo(1))
  const undoneOnly = await pass([{ at: hoursAgo(1), undone: true }], hoursAgo(1))
  const untouched = await pass([{ at: earlier }, { at: later }], later)
  await inTransaction(down)
  await inTransaction(up)
  const rows = await sql<{ id: string; last_stamped_at: Date | null }>(
    `select id, last_stamped_at from passes where id in (:ids)`,
    { ids: [undoneLast, undoneOnly, untouched] },
  )
  const at = (id: string) => rows.find((row) => row.id === id)!.last_stamped_at?.getTime() ?? null
  expect(at(undoneLast)).toBe(earlier.getTime())
  expect(at(undoneOnly)).toBeNull()
  expect(at(untouched)).toBe(later.getTime())
})
