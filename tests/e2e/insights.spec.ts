import crypto from 'node:crypto'
import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { expect, test } from '#tests/support/test.ts'

/**
 * Issue 18, with JavaScript and without: the card page's range switch changes every figure, the chart and the heat
 * map; the CSV links download the card's holders and stamps; the account home shows the last 30 days of all cards.
 */
const DAY = 86_400_000
const shortCode = () =>
  Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join('')

test('the range switch, the downloads and the account home', async ({ page }) => {
  const owner = await createOwner('insights')
  const card = await createCard(owner.id, { stampsRequired: 5 })
  await sql(`update users set time_zone = 'Pacific/Honolulu' where id = $1`, [owner.id])
  const [pass] = await sql<{ id: string; short_code: string }>(
    `insert into passes (card_id, short_code, created_at) values ($1, $2, $3) returning id, short_code`,
    [card.id, shortCode(), new Date(Date.now() - 60 * DAY)],
  )
  // 3 stamps 50 days ago (outside 30 days), 2 stamps 3 days ago: written as the app's statement would.
  for (const [count, daysAgo] of [
    [3, 50],
    [2, 3],
  ] as const) {
    await sql(
      `with updated as (update passes set stamps = stamps + $2, last_visit_at = $3 where id = $1 returning id)
       insert into stamp_events (pass_id, card_id, actor_id, kind, count, created_at)
       select $1, $4, $5, 'stamp', $2, $3 from updated`,
      [pass!.id, count, new Date(Date.now() - daysAgo * DAY), card.id, owner.id],
    )
  }
  await signIn(page, owner)
  await page.goto(`/account/${card.id}`)
  const figure = (label: string) => page.locator('.insight-figure').filter({ hasText: label })
  const range = page.getByRole('navigation', { name: 'Range' })
  await expect(range.getByRole('link', { name: '30 days' })).toHaveAttribute('aria-current', 'page')
  await expect(figure('Stamps').locator('.insight-figure__value')).toHaveText('2')
  await expect(page.getByText('days in Pacific/Honolulu')).toBeVisible()

  await range.getByRole('link', { name: '90 days' }).click()
  await expect(page).toHaveURL(`/account/${card.id}?range=90d`)
  await expect(range.getByRole('link', { name: '90 days' })).toHaveAttribute('aria-current', 'page')
  await expect(figure('Stamps').locator('.insight-figure__value')).toHaveText('5')
  await expect(figure('New holders').locator('.insight-figure__value')).toHaveText('1')
  await expect(figure('Returning rate').locator('.insight-figure__value')).toHaveText('100%')
  await expect(page.getByRole('img', { name: /Last 90 days: 5 stamps and 1 new holders/ })).toBeVisible()

  await range.getByRole('link', { name: '7 days' }).click()
  await expect(page).toHaveURL(`/account/${card.id}?range=7d`)
  await expect(figure('Stamps').locator('.insight-figure__value')).toHaveText('2')
  await expect(
    page.getByRole('table', { name: /Visits by weekday and hour/ }).locator('td[title*=": 1 visit"]'),
  ).toHaveCount(1)

  for (const [name, header, rows] of [
    ['Download holders (CSV)', /^(\uFEFF)?short_code,/, 1],
    ['Download stamps (CSV)', /^(\uFEFF)?time,/, 2],
  ] as const) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()])
    expect(download.suggestedFilename()).toMatch(/\.csv$/)
    const text = await (
      await download.createReadStream()
    )
      .toArray()
      .then((chunks) => Buffer.concat(chunks).toString('utf8'))
    const lines = text.trimEnd().split('\r\n')
    expect(lines[0]).toMatch(header)
    expect(lines, name).toHaveLength(rows + 1)
  }

  await page.goto('/account')
  const headline = page.getByRole('region', { name: 'Last 30 days, all cards' })
  await expect(
    headline.locator('.insight-figure').filter({ hasText: 'Stamps' }).locator('.insight-figure__value'),
  ).toHaveText('2')
})
