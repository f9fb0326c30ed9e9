import crypto from 'node:crypto'
import { localInputValue, SCHEDULE_WHEN_MESSAGES } from '#app/utils/schedule-time.ts'
import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { expect, expectPageError, failedLoad, test, type Page } from '#tests/support/test.ts'

/**
 * Audiences and scheduled broadcasts (issue 19), with JavaScript and without, on a 360 px phone: the owner picks an
 * audience and sees its reach, schedules the message for a time in the business's zone (a past time is refused
 * with the reason), finds it in the scheduled list, and cancels it. Holders' devices are rows: nothing is sent.
 */
const ZONE = 'Europe/Berlin'
const code = () => Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join('')

async function addHolder(cardId: string, daysSinceVisit: number, channel: 'web' | 'apple') {
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code, created_at, last_visit_at)
     values ($1, $2, now() - make_interval(days => $3), now() - make_interval(days => $3)) returning id`,
    [cardId, code(), daysSinceVisit],
  )
  if (channel === 'web') {
    await sql(`insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values ($1, $2, 'k', 'a')`, [
      pass!.id,
      `https://fcm.googleapis.com/fcm/send/${crypto.randomBytes(8).toString('hex')}`,
    ])
  } else {
    const device = `device-${crypto.randomBytes(6).toString('hex')}`
    await sql(`insert into apple_devices (id, push_token) values ($1, 'ab12')`, [device])
    await sql(`insert into apple_registrations (device_id, pass_id) values ($1, $2)`, [device, pass!.id])
  }
}

const main = (page: Page) => page.locator('main')

async function expectFits(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth), 'no sideways scroll at 360 px').toBe(360)
}

test('choose an audience and see its reach, schedule the message, see it listed, cancel it', async ({
  page,
}, testInfo) => {
  const js = testInfo.project.name === 'js'
  if (!js) expectPageError(failedLoad(400, /\/push_notification\/confirm\/[0-9a-f-]{36}$/))
  const owner = await createOwner('scheduled-push')
  await sql(`update users set time_zone = $1 where id = $2`, [ZONE, owner.id])
  const card = await createCard(owner.id)
  await addHolder(card.id, 45, 'web')
  await addHolder(card.id, 2, 'web')
  await addHolder(card.id, 3, 'apple')
  const [draft] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, title, body) values ($1, $2, 'We miss you', 'A free coffee on us')
     returning id`,
    [card.id, owner.id],
  )
  await signIn(page, owner)
  await page.setViewportSize({ width: 360, height: 740 })

  await page.goto(`/account/${card.id}/push_notification/confirm/${draft!.id}`)
  await expect(page.getByText('All holders: 3 holders, 3 of them reached.')).toBeVisible()
  await expect(page.getByText('Will reach 3 devices: 2 with notifications on, 1 in Apple Wallet')).toBeVisible()
  await expectFits(page)

  // With JavaScript the reach follows the select; without, 'Show reach' asks for it.
  await main(page).getByLabel('Send to').selectOption('inactive')
  if (!js) await main(page).getByRole('button', { name: 'Show reach' }).click()
  await expect(page.getByText('No visit for 30+ days: 1 holder, 1 of them reached.')).toBeVisible()
  await expect(page.getByText('Will reach 1 device with notifications on')).toBeVisible()
  await expect(page).toHaveURL(/\?audience=inactive$/)
  await expect(main(page).getByText(`In your time zone, ${ZONE}`)).toBeVisible()

  // A time already past: refused with the reason (in the browser with JavaScript, by the server without).
  const when = main(page).getByLabel('Date and time')
  await when.fill(localInputValue(new Date(Date.now() - 3_600_000), ZONE))
  await main(page).getByRole('button', { name: 'Schedule' }).click()
  await expect(page.getByText(SCHEDULE_WHEN_MESSAGES.tooSoon)).toBeVisible()

  const due = new Date(Math.ceil((Date.now() + 2 * 86_400_000) / 60_000) * 60_000)
  await main(page).getByLabel('Date and time').fill(localInputValue(due, ZONE))
  await main(page).getByRole('button', { name: 'Schedule' }).click()
  await expect(page).toHaveURL(new RegExp(`/account/${card.id}/push_notification/scheduled$`))
  const shown = new Intl.DateTimeFormat('en-GB', {
    timeZone: ZONE,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(due)
  await expect(page.getByText(`Scheduled for ${shown} (${ZONE}).`)).toBeVisible()
  const item = main(page).locator('.scheduled-list > li')
  await expect(item).toHaveCount(1)
  await expect(item).toContainText('We miss you')
  await expect(item).toContainText(`${shown} · No visit for 30+ days`)
  await expectFits(page)

  await item.getByRole('button', { name: /Cancel/ }).click()
  await expect(page.getByText('The scheduled message was cancelled.')).toBeVisible()
  await expect(page.getByText('No messages are scheduled for this card.')).toBeVisible()
  const [row] = await sql<{ status: string; audience: string }>(
    `select status, audience from notifications where id = $1`,
    [draft!.id],
  )
  expect(row).toEqual({ status: 'cancelled', audience: 'inactive' })
})
