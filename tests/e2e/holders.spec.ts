import crypto from 'node:crypto'
import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { expect, test } from '#tests/support/test.ts'

/**
 * Issue 18, holders, with JavaScript and without: from the card page to its holders, filter, search, order, two
 * pages there and back, and a holder's history.
 */
test('holders: filter, search, order, page through and open a holder’s history', async ({ page }) => {
  // Short codes are unique across cards, and both projects share the database: this run's own three letters.
  const tag = Array.from(crypto.randomBytes(3), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ'[byte % 24]).join('')
  const [first, almost, waiting] = [`${tag}AAAAX`, `${tag}ALMST`, `${tag}RWRDN`]
  const owner = await createOwner('holders')
  const card = await createCard(owner.id, { stampsRequired: 5 })
  // 58 holders visited an hour apart (2 stamps each), one a stamp from the reward, one with the reward waiting.
  await sql(
    `insert into passes (card_id, short_code, stamps, last_visit_at)
     select $1, $2 || lpad(translate(to_hex(g), '01abcdef', 'WXYZSTUV'), 5, 'A'), 2, now() - g * interval '1 hour'
     from generate_series(1, 58) g`,
    [card.id, tag],
  )
  await sql(
    `insert into passes (card_id, short_code, stamps, last_visit_at) values
       ($1, $2, 4, now() - interval '100 hours'), ($1, $3, 5, now() - interval '200 hours')`,
    [card.id, almost, waiting],
  )
  const rows = page.locator('.holders-table tbody tr')
  const status = page.getByRole('status').filter({ hasText: /holders? / })
  await signIn(page, owner)
  await page.goto(`/account/${card.id}`)
  await page.getByRole('link', { name: 'Holders', exact: true }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Holders' })).toBeVisible()
  await expect(status).toHaveText('60 holders in all')
  await expect(rows).toHaveCount(50)
  await expect(rows.first().locator('td').first()).toHaveText(first)

  await page.getByRole('link', { name: 'Next 50' }).click()
  await expect(rows).toHaveCount(10)
  await expect(rows.last().locator('td').first()).toHaveText(waiting)
  await expect(page.getByRole('link', { name: 'Next 50' })).toHaveCount(0)
  await page.getByRole('link', { name: 'Previous' }).click()
  await expect(rows).toHaveCount(50)
  await expect(rows.first().locator('td').first()).toHaveText(first)

  await page.getByLabel('Show').selectOption('one-to-go')
  await page.getByRole('button', { name: 'Show holders' }).click()
  await expect(status).toHaveText('1 holder match')
  await expect(rows).toHaveCount(1)
  await expect(rows.first()).toContainText('4 of 5')

  await page.getByLabel('Show').selectOption('all')
  await page.getByLabel('Short code').fill(`${tag.toLowerCase()}-rwr`)
  await page.getByRole('button', { name: 'Show holders' }).click()
  await expect(rows).toHaveCount(1)
  await expect(rows.first().locator('td').first()).toHaveText(waiting)

  await page.getByLabel('Short code').fill('')
  await page.getByLabel('Order').selectOption('stamps')
  await page.getByRole('button', { name: 'Show holders' }).click()
  await expect(page).toHaveURL(/sort=stamps/)
  await expect(rows.nth(0).locator('td').first()).toHaveText(waiting)
  await expect(rows.nth(1).locator('td').first()).toHaveText(almost)

  await page.getByRole('link', { name: `History of ${waiting}` }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Holder ${waiting}`)
  await expect(page.getByText('1 earned, 0 redeemed')).toBeVisible()
  await expect(page.getByText('No messages have reached this holder yet.')).toBeVisible()
})
