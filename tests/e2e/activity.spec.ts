import crypto from 'node:crypto'
import { parseCsv } from '#tests/support/csv-parse.ts'
import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { measureWidth } from '#tests/support/page-width.ts'
import { expect, test, type Page } from '#tests/support/test.ts'

/**
 * Issue 20 item 5, with JavaScript and without, on a 360 px screen: the activity lists who stamped, undid or
 * redeemed, where and when; the person filter narrows it and its CSV; a short code opens the holder; the card page's
 * insights filter by location.
 */
const main = (page: Page) => page.locator('main')
const shortCode = () =>
  Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join('')

/** A stamp, undo or redemption a minute apart, written as the app's statement would, by `actor` at `location`. */
async function event(
  pass: { id: string },
  cardId: string,
  kind: 'stamp' | 'undo' | 'redeem',
  minutesAgo: number,
  {
    actor,
    location = null,
    count = 1,
    overridden = false,
  }: {
    actor: string
    location?: string | null
    count?: number
    overridden?: boolean
  },
) {
  const delta = kind === 'stamp' ? count : kind === 'undo' ? -count : -5
  await sql(
    `with updated as (update passes set stamps = stamps + $2, rewards_redeemed = rewards_redeemed + $3
                      where id = $1 returning id)
     insert into stamp_events (pass_id, card_id, actor_id, location_id, kind, count, overridden, created_at)
     select $1, $4, $5, $6, $7, $8, $9, now() - $10 * interval '1 minute' from updated`,
    [pass.id, delta, kind === 'redeem' ? 1 : 0, cardId, actor, location, kind, count, overridden, minutesAgo],
  )
}

test('the activity: who, what and where; the person filter and its CSV; the insights by location', async ({ page }) => {
  test.setTimeout(90_000) // about a dozen page loads and a download, on a shared machine
  const owner = await createOwner('activity')
  const card = await createCard(owner.id, { title: 'Coffee card', stampsRequired: 5 })
  const [location] = await sql<{ id: string }>(
    `insert into locations (owner_id, name, address) values ($1, 'Main Street', '1 Main Street') returning id`,
    [owner.id],
  )
  const [anna] = await sql<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at, role, employer_id, staff_name)
     values ($1, 'not-used', now(), 'staff', $2, 'Anna') returning id`,
    [`anna-${crypto.randomBytes(4).toString('hex')}@example.com`, owner.id],
  )
  const code = shortCode()
  const [pass] = await sql<{ id: string }>(`insert into passes (card_id, short_code) values ($1, $2) returning id`, [
    card.id,
    code,
  ])
  await event(pass!, card.id, 'stamp', 50, { actor: owner.id, count: 2 })
  await event(pass!, card.id, 'stamp', 40, { actor: anna!.id, location: location!.id, count: 3, overridden: true })
  await event(pass!, card.id, 'redeem', 30, { actor: anna!.id, location: location!.id })

  await page.setViewportSize({ width: 360, height: 740 })
  await signIn(page, owner)
  await page.goto(`/account/${card.id}`)
  await main(page).getByRole('link', { name: 'Activity', exact: true }).click()
  await expect(page).toHaveURL(`/account/activity?card=${card.id}`)
  await expect(main(page).locator('h1')).toHaveText('Activity')
  const rows = page.locator('.holders-table tbody tr')
  await expect(rows).toHaveCount(3)
  await expect(rows.nth(0)).toContainText('Redeemed the reward')
  await expect(rows.nth(0)).toContainText('Anna')
  await expect(rows.nth(0)).toContainText('Main Street')
  await expect(rows.nth(1)).toContainText('Stamped 3')
  await expect(rows.nth(1)).toContainText('rule overridden')
  await expect(rows.nth(2)).toContainText('Stamped 2')
  await expect(rows.nth(2)).toContainText('You')
  await expect(rows.nth(2)).toContainText('No location')
  expect(await measureWidth(page, 360), 'the activity at 360 px').toMatchObject({ beyondRightEdge: [] })

  await page.getByLabel('Person').selectOption({ label: 'You' })
  await page.getByRole('button', { name: 'Show activity' }).click()
  await expect(page).toHaveURL(/person=owner/)
  await expect(rows).toHaveCount(1)
  await expect(rows.first()).toContainText('Stamped 2')

  await page.getByLabel('Person').selectOption({ label: 'Anna' })
  await page.getByRole('button', { name: 'Show activity' }).click()
  await expect(page).toHaveURL(new RegExp(`person=${anna!.id}`))
  await expect(rows).toHaveCount(2)
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download this activity (CSV)' }).click(),
  ])
  expect(download.suggestedFilename()).toMatch(/^activity-\d{4}-\d\d-\d\d\.csv$/)
  const text = Buffer.concat(await (await download.createReadStream()).toArray()).toString('utf8')
  const { records } = parseCsv(text)
  expect(records.map((record) => [record[3], record[5], record[6]])).toEqual([
    ['action', 'person', 'location'],
    ['redeem', 'Anna', 'Main Street'],
    ['stamp', 'Anna', 'Main Street'],
  ])

  await page
    .getByRole('link', { name: `History of ${code}` })
    .first()
    .click()
  await expect(main(page).locator('h1')).toHaveText(`Holder ${code}`)

  // The card page's insights at Main Street: Anna's 3 stamps, the redemption, and what is left out said.
  await page.goto(`/account/${card.id}`)
  const insights = main(page).getByRole('region', { name: 'Insights' })
  const figure = (label: string) => insights.locator('.insight-figure').filter({ hasText: label })
  await expect(figure('Stamps').locator('.insight-figure__value')).toHaveText('5')
  await insights.getByLabel('Location').selectOption({ label: 'Main Street' })
  await insights.getByRole('button', { name: 'Filter insights' }).click()
  await expect(page).toHaveURL(new RegExp(`location=${location!.id}`))
  await expect(insights.getByText('Showing the visits, stamps and redemptions at Main Street.')).toBeVisible()
  await expect(figure('Stamps').locator('.insight-figure__value')).toHaveText('3')
  await expect(figure('Rewards redeemed').locator('.insight-figure__value')).toHaveText('1')
  await expect(figure('New holders')).toHaveCount(0)
  await expect(insights.getByRole('img', { name: /Last 30 days: 3 stamps$/ })).toBeVisible()
  expect(await measureWidth(page, 360), 'the filtered card page at 360 px').toMatchObject({ beyondRightEdge: [] })
  await insights.getByRole('link', { name: 'All', exact: true }).click()
  await expect(figure('Stamps').locator('.insight-figure__value')).toHaveText('5')
})
