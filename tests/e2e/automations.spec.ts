import crypto from 'node:crypto'
import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { measureWidth } from '#tests/support/page-width.ts'
import { expect, expectPageError, failedLoad, test, type Page } from '#tests/support/test.ts'

/**
 * Issue 19, the owner's automatic messages, with JavaScript and without, on a 360 px screen: from the card page to
 * the automations page, turn on 'we miss you' with its days and words, a too-long title refused with the composer's
 * message, quiet hours and caps set; and the history showing a day of automatic messages.
 */
const main = (page: Page) => page.locator('main')
const section = (page: Page, name: string) => main(page).getByRole('region', { name, exact: true })
const toast = (page: Page, text: string) => page.getByRole('status').getByText(text)

test('automatic messages: turn one on with its words, refuse a long title, set quiet hours and caps', async ({
  page,
}, testInfo) => {
  expectPageError(failedLoad(400, /^\/account\/[0-9a-f-]{36}\/automations$/))
  const js = testInfo.project.name === 'js'
  const owner = await createOwner('automations')
  const card = await createCard(owner.id)
  await sql(`update users set time_zone = 'Europe/Lisbon' where id = $1`, [owner.id])
  await page.setViewportSize({ width: 360, height: 740 })
  await signIn(page, owner)

  await page.goto(`/account/${card.id}`)
  await main(page).getByRole('link', { name: 'Automatic messages', exact: true }).first().click()
  await expect(page).toHaveURL(new RegExp(`/account/${card.id}/automations$`))
  await expect(main(page).locator('h1')).toHaveText('Automatic messages')
  expect(await measureWidth(page, 360), 'the page at 360 px').toMatchObject({ beyondRightEdge: [] })

  // We miss you: on, after 14 days, new words.
  const missYou = section(page, 'We miss you')
  await expect(missYou.getByLabel('Send “We miss you”')).not.toBeChecked()
  await expect(missYou.getByLabel('After how many days')).toHaveValue('30')
  await missYou.getByLabel('Send “We miss you”').check()
  await missYou.getByLabel('After how many days').fill('14')
  await missYou.getByLabel('Title', { exact: true }).fill('Long time no see')
  await missYou.getByLabel('Message', { exact: true }).fill('Your next coffee comes with a double stamp.')
  if (js) {
    // The preview follows the typing.
    await expect(missYou.locator('.push-preview__title')).toHaveText('Long time no see')
    await expect(missYou.getByText('16 / 50')).toBeVisible()
  }
  await missYou.getByRole('button', { name: 'Save “We miss you”' }).click()
  await expect(toast(page, '“We miss you” saved: it is on.')).toBeVisible()
  await page.reload()
  await expect(missYou.getByLabel('Send “We miss you”')).toBeChecked()
  await expect(missYou.getByLabel('After how many days')).toHaveValue('14')
  await expect(missYou.getByLabel('Title', { exact: true })).toHaveValue('Long time no see')
  await expect(missYou.locator('.push-preview__body')).toHaveText('Your next coffee comes with a double stamp.')

  // Too long a title: the composer's message, with JavaScript at once and without after the server's 400.
  const welcome = section(page, 'Welcome')
  await welcome.getByLabel('Title', { exact: true }).fill('W'.repeat(51))
  await welcome.getByRole('button', { name: 'Save “Welcome”' }).click()
  await expect(welcome.getByText('The title must be 50 characters or fewer')).toBeVisible()
  await expect(welcome.getByText('51 / 50')).toBeVisible()
  expect((await sql(`select 1 from card_automations where card_id = $1 and kind = 'welcome'`, [card.id])).length).toBe(
    0,
  )

  // Quiet hours and caps.
  await page.goto(`/account/${card.id}/automations`)
  const rules = section(page, 'Quiet hours and limits')
  await expect(rules.getByText('Europe/Lisbon')).toBeVisible()
  await expect(rules.getByRole('link', { name: 'change your time zone' })).toHaveAttribute('href', '/account/profile')
  await expect(rules.getByLabel('Hold automatic messages during quiet hours')).toBeChecked()
  await rules.getByLabel('From').fill('20:30')
  await rules.getByLabel('Until').fill('08:00')
  await rules.getByLabel('A day').selectOption('0')
  await rules.getByLabel(/^A week/).selectOption('2')
  await rules.getByRole('button', { name: 'Save quiet hours and limits' }).click()
  await expect(toast(page, 'Quiet hours and limits saved.')).toBeVisible()
  await page.reload()
  await expect(rules.getByLabel('From')).toHaveValue('20:30')
  await expect(rules.getByLabel('Until')).toHaveValue('08:00')
  await expect(rules.getByLabel('A day')).toHaveValue('0')
  await expect(rules.getByLabel(/^A week/)).toHaveValue('2')
  const [stored] = await sql<{ quiet_start: number; quiet_end: number; daily: number; weekly: number }>(
    `select quiet_start, quiet_end, automatic_daily_cap as daily, automatic_weekly_cap as weekly from cards where id = $1`,
    [card.id],
  )
  expect(stored).toEqual({ quiet_start: 20 * 60 + 30, quiet_end: 8 * 60, daily: 0, weekly: 2 })
  expect(await measureWidth(page, 360), 'the page at 360 px').toMatchObject({ beyondRightEdge: [] })
})

test('history: the day’s automatic messages per kind beside the owner’s messages', async ({ page }) => {
  const owner = await createOwner('automatic-history')
  const card = await createCard(owner.id)
  const [pass] = await sql<{ id: string }>(`insert into passes (card_id, short_code) values ($1, $2) returning id`, [
    card.id,
    Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join(''),
  ])
  for (const kind of ['we_miss_you', 'we_miss_you', 'stamp']) {
    const [row] = await sql<{ id: string }>(
      `insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at)
       values ($1, $2, $3, $4, 'Hello', 'Hello again', 'done', false, now()) returning id`,
      [card.id, owner.id, pass!.id, kind],
    )
    await sql(`insert into deliveries (notification_id, status, attempts) values ($1, 'sent', 1)`, [row!.id])
  }
  await page.setViewportSize({ width: 360, height: 740 })
  await signIn(page, owner)
  await page.goto(`/account/${card.id}`)
  await main(page).getByRole('link', { name: 'History', exact: true }).click()
  await expect(main(page).locator('h1')).toHaveText('Notifications history')
  const automatic = section(page, 'Automatic messages')
  const missYou = automatic.locator('.history-kinds > li').filter({ hasText: 'We miss you' })
  await expect(missYou).toContainText('2 messages · 2 delivered · 0 failed · 0 pending')
  await expect(automatic.locator('.history-kinds > li').filter({ hasText: 'Stamp push' })).toContainText(
    '1 message · 1 delivered',
  )
  await expect(section(page, 'Your messages')).toContainText('No messages have been sent')
  expect(await measureWidth(page, 360), 'the page at 360 px').toMatchObject({ beyondRightEdge: [] })
  await main(page).getByRole('link', { name: 'Automatic messages settings' }).click()
  await expect(main(page).locator('h1')).toHaveText('Automatic messages')
})
