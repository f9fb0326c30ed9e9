import crypto from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { localDay } from '#app/utils/local-time.ts'
import { csvObjects } from '#tests/support/csv-parse.ts'
import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { expect, test } from '#tests/support/test.ts'

/**
 * Issue 18 item 4: the browser saves the stamps export as a file named for the card and the business's day, and the
 * file reads back (the integration tests check every column; the card page's links are the lead's).
 */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

test('the stamps CSV downloads as a file that reads back', async ({ page }) => {
  const owner = await createOwner('export')
  await sql(`update users set time_zone = 'Pacific/Auckland' where id = $1`, [owner.id])
  const card = await createCard(owner.id)
  const shortCode = Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')
  const [pass] = await sql<{ id: string }>(`insert into passes (card_id, short_code) values ($1, $2) returning id`, [
    card.id,
    shortCode,
  ])
  await sql(
    `insert into stamp_events (pass_id, card_id, kind, count, created_at) values ($1, $2, 'stamp', 2, '2026-01-10T22:31:00Z')`,
    [pass!.id, card.id],
  )
  await signIn(page, owner)

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    // An attachment ends the navigation with a download instead of a page.
    page.goto(`/account/${card.id}/export/stamps.csv`).catch(() => null),
  ])
  expect(download.suggestedFilename()).toBe(`${card.slug}-stamps-${localDay(new Date(), 'Pacific/Auckland')}.csv`)
  const { bom, rows } = csvObjects(await readFile((await download.path())!, 'utf8'))
  expect(bom).toBe(true)
  expect(rows).toEqual([
    { time: '2026-01-11T11:31:00+13:00', short_code: shortCode, action: 'stamp', count: '2', undone: 'no' },
  ])
})
