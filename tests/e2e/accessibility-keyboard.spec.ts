import crypto from 'node:crypto'
import { createCard, createOwner, OWNER_PASSWORD, signIn, sql } from '#tests/support/e2e-database.ts'
import { tabTo, typeInto } from '#tests/support/keyboard.ts'
import { pushEndpointClient } from '#tests/support/push-endpoint-client.ts'
import { expect, test, type Page } from '#tests/support/test.ts'

/*
 * Issue #8, accessibility: the main forms filled and sent with the keyboard alone — Tab, Shift+Tab, typing, arrow
 * keys, Enter and Space; no clicks — with and without JavaScript. Every element focused on the way must show a
 * focus indicator (tests/support/keyboard.ts). Each test makes its own owner, since they change what they touch.
 */
const main = (page: Page) => page.locator('main')
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const push = pushEndpointClient(process.env.E2E_PUSH_CONTROL_URL!)

async function createPass(cardId: string) {
  const shortCode = Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')
  const [pass] = await sql<{ id: string }>(`insert into passes (card_id, short_code) values ($1, $2) returning id`, [
    cardId,
    shortCode,
  ])
  return { id: pass!.id, shortCode }
}

test('sign in: e-mail, password, Enter', async ({ page }) => {
  const owner = await createOwner('kbd-login')
  await createCard(owner.id)
  await page.goto('/login')
  await typeInto(page, page.getByLabel('Email'), owner.email)
  await typeInto(page, page.getByLabel('Password', { exact: true }), OWNER_PASSWORD)
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL('/account')
})

test('sign up: the three fields, Shift+Tab back to correct the e-mail, then the Continue button with Space', async ({
  page,
}, testInfo) => {
  const email = `kbd-signup-${testInfo.project.name}-${crypto.randomBytes(4).toString('hex')}@example.com`
  await page.goto('/sign-up')
  await typeInto(page, page.getByLabel('Email'), 'typo@example')
  await typeInto(page, page.getByLabel('Password', { exact: true }), 'Stamp.card1')
  await typeInto(page, page.getByLabel('Repeat password', { exact: true }), 'Stamp.card1')
  await typeInto(page, page.getByLabel('Email'), email, { backwards: true })
  await tabTo(page, main(page).getByRole('button', { name: 'Continue' }))
  await page.keyboard.press('Space')
  await expect(page).toHaveURL(`/verify-email?email=${encodeURIComponent(email)}`)
})

test('card designer: the design with an arrow-key icon choice, Enter; then the reward, Space', async ({ page }) => {
  const owner = await createOwner('kbd-design')
  await signIn(page, owner)
  await page.goto('/main')
  await typeInto(page, page.getByLabel('Business name'), 'Keyboard Café')
  await typeInto(page, page.getByLabel('Card title'), 'Tab card')
  // Into the icon group: focus lands on the chosen icon, and an arrow key chooses the next one.
  const firstChoice = page.getByRole('radio', { checked: true })
  await tabTo(page, firstChoice)
  const chosen = await firstChoice.getAttribute('value')
  await page.keyboard.press('ArrowRight')
  const next = page.getByRole('radio', { checked: true })
  await expect(next).not.toHaveAttribute('value', chosen ?? '')
  const icon = await next.getAttribute('value')
  await typeInto(page, page.getByLabel('Stamps needed for the reward'), '6')
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/\/card_reward\?cardId=[0-9a-f-]{36}$/)
  const cardId = new URL(page.url()).searchParams.get('cardId')!
  const [saved] = await sql<{ business_name: string; title: string; stamp_icon: string; stamps_required: number }>(
    `select business_name, title, stamp_icon, stamps_required from cards where id = $1`,
    [cardId],
  )
  expect(saved).toEqual({ business_name: 'Keyboard Café', title: 'Tab card', stamp_icon: icon, stamps_required: 6 })

  await typeInto(page, page.getByLabel('Reward'), 'A free pastry')
  await tabTo(page, page.getByRole('button', { name: 'Save and publish the card' }))
  await page.keyboard.press('Space')
  await expect(page).toHaveURL(`/card_ready?cardId=${cardId}`)
})

test('stamping: the pass code, Enter', async ({ page }) => {
  const owner = await createOwner('kbd-stamp')
  const card = await createCard(owner.id, { stampsRequired: 8 })
  const { shortCode } = await createPass(card.id)
  await signIn(page, owner)
  await page.goto(`/account/${card.id}/scan`)
  await typeInto(page, page.getByLabel('Pass code'), shortCode)
  await page.keyboard.press('Enter')
  await expect(page.locator('.scan-pass__progress')).toHaveText('1 of 8 stamps')
})

test('push composer: title and message, Continue with Enter, then Send with Space', async ({ page }) => {
  const owner = await createOwner('kbd-push')
  const card = await createCard(owner.id)
  // One holder with notifications on (a device at the local push service), so the message can go out.
  const pass = await createPass(card.id)
  const device = await push.createSubscription('ok')
  await sql(`insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values ($1, $2, $3, $4)`, [
    pass.id,
    device.endpoint,
    device.keys.p256dh,
    device.keys.auth,
  ])
  await signIn(page, owner)
  await page.goto(`/account/${card.id}/push_notification/create`)
  await typeInto(page, main(page).getByLabel('Title', { exact: true }), 'Keyboard day')
  await typeInto(page, main(page).getByLabel('Message', { exact: true }), 'Double stamps for everyone today')
  await tabTo(page, main(page).getByRole('button', { name: 'Continue' }))
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(new RegExp(`/account/${card.id}/push_notification/confirm/[0-9a-f-]{36}$`))
  const confirmUrl = page.url()
  await tabTo(page, main(page).getByRole('button', { name: 'Send', exact: true }))
  await page.keyboard.press('Space')
  await expect(page.getByText('Sending to 1 device.')).toBeVisible()
  await expect(page).toHaveURL(confirmUrl)
  const [message] = await sql<{ status: string }>(
    `select status from notifications where card_id = $1 and title = 'Keyboard day'`,
    [card.id],
  )
  expect(message!.status).not.toBe('draft')
})

test('an admin action: grant push messages — the number, the confirmation box with Space, the button with Enter', async ({
  page,
}) => {
  test.setTimeout(60_000) // the admin page is long: many Tab stops, each checked
  const owner = await createOwner('kbd-granted')
  const admin = await createOwner('kbd-admin')
  await sql(`update users set role = 'admin' where id = $1`, [admin.id])
  await signIn(page, admin)
  await page.goto(`/admin/users/${owner.id}`)
  const form = page.getByRole('form', { name: 'Grant push messages' })
  await typeInto(page, form.getByLabel('Messages to add (1–1000)'), '25')
  const confirmBox = form.getByRole('checkbox', { name: /I confirm/ })
  await tabTo(page, confirmBox, { maxPresses: 150 })
  await page.keyboard.press('Space')
  await expect(confirmBox).toBeChecked()
  await tabTo(page, form.getByRole('button', { name: 'Grant messages' }))
  await page.keyboard.press('Enter')
  await expect(page.getByRole('region', { name: 'Subscription' })).toContainText('25')
})
