import crypto from 'node:crypto'
import { expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { down, up } from '#migrations/0018-wallet-limits.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { createWalletCard, createWalletPass } from '#tests/support/wallet-device.ts'

/*
 * Migration 0018 (issue 30): a pass registered to more than 10 Apple Wallet devices keeps its 10 newest, and every
 * device holding a pass is pushed once so that it fetches the pass's new look. The migration is taken down on this
 * file's own database, rows are written as before it, and it runs up again.
 */
const inTransaction = (step: typeof up) =>
  getSequelize().transaction((transaction) => step({ context: { sequelize: getSequelize(), transaction } }))

async function registerDevices(passId: string, count: number, token = 'ab12') {
  const devices: string[] = []
  for (let index = 0; index < count; index++) {
    const device = `mig-${crypto.randomBytes(6).toString('hex')}`
    await sql(`insert into apple_devices (id, push_token) values (:device, :token) on conflict do nothing`, {
      device,
      token,
    })
    await sql(
      `insert into apple_registrations (device_id, pass_id, created_at)
       values (:device, :passId, now() - make_interval(mins => :minutesAgo))`,
      { device, passId, minutesAgo: count - index },
    )
    devices.push(device)
  }
  return devices
}

const registered = async (passId: string) =>
  (await sql<{ device_id: string }>(`select device_id from apple_registrations where pass_id = :passId`, { passId }))
    .map((row) => row.device_id)
    .sort()

test('a pass with 12 devices keeps its 10 newest; every device of a held card is pushed once, its card made new', async () => {
  await inTransaction(down)
  const owner = await createOwner()
  const cardId = await createWalletCard(owner.id)
  const [crowded, quiet] = [await createWalletPass(cardId), await createWalletPass(cardId)]
  const crowdedDevices = await registerDevices(crowded.id, 12)
  const quietDevices = await registerDevices(quiet.id, 3)
  const otherCard = await createWalletCard(owner.id)
  await createWalletPass(otherCard)
  const modifiedAt = async (id: string) =>
    new Date(
      (await sql<{ at: Date }>(`select wallet_modified_at as at from cards where id = :id`, { id }))[0]!.at,
    ).getTime()
  const [before, otherBefore] = [await modifiedAt(cardId), await modifiedAt(otherCard)]
  const pushesBefore = (await sql<{ n: number }>(`select count(*)::int as n from apple_pushes`))[0]!.n

  await inTransaction(up)

  expect(await registered(crowded.id)).toEqual(crowdedDevices.slice(2).sort())
  expect(await registered(quiet.id)).toEqual(quietDevices.sort())
  const pushed = await sql<{ device_id: string; pass_id: string }>(
    `select device_id, pass_id from apple_pushes order by id offset :skip`,
    { skip: pushesBefore },
  )
  expect(pushed.map((push) => push.device_id).sort()).toEqual([...crowdedDevices.slice(2), ...quietDevices].sort())
  expect(await modifiedAt(cardId)).toBeGreaterThan(before)
  expect(await modifiedAt(otherCard)).toBe(otherBefore)
})
