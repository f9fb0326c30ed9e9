import crypto from 'node:crypto'
import { createOwner, signIn, sql, type TestOwner } from '#tests/support/e2e-database.ts'
import { e2eMailPorts, type ReceivedMail } from '#tests/support/smtp-peer.ts'
import { expect, expectPageError, failedLoad, test, type APIRequestContext, type Page } from '#tests/support/test.ts'

/**
 * The owner's FAQ, Feedback form and notifications, with and without JavaScript (the two projects). Notices are
 * raised in the database, as the jobs would; feedback mail is read back from the SMTP peer.
 */
const MAIL_URL = `http://127.0.0.1:${e2eMailPorts().http}`
const SUPPORT_EMAIL = 'support@localhost'
const SENT = 'Thanks! Your message has been sent.'

const unique = (label: string) => `${label} ${crypto.randomBytes(4).toString('hex')}`

/** The mail to support that `matches`, waiting for the SMTP peer to receive it. */
async function supportMail(request: APIRequestContext, matches: (mail: ReceivedMail) => boolean, what: string) {
  let found: ReceivedMail | undefined
  await expect
    .poll(
      async () => {
        const response = await request.get(`${MAIL_URL}/messages?${new URLSearchParams({ to: SUPPORT_EMAIL })}`)
        found = ((await response.json()) as ReceivedMail[]).find(matches)
        return Boolean(found)
      },
      { message: `a mail to ${SUPPORT_EMAIL}: ${what}`, timeout: 15_000 },
    )
    .toBe(true)
  return found!
}

async function raiseNotice(owner: TestOwner, message: string, link: string | null = '/account/help') {
  await sql(
    `insert into notices (user_id, kind, message, link, dedupe_key) values ($1, 'payment_confirmed', $2, $3, $4)`,
    [owner.id, message, link, crypto.randomUUID()],
  )
}

async function signedInOwner(page: Page) {
  const owner = await createOwner('notices')
  await signIn(page, owner)
  return owner
}

test('the FAQ opens an answer and leads to the Feedback form', async ({ page }) => {
  await signedInOwner(page)
  await page.goto('/account/help')
  await expect(page.getByRole('heading', { level: 1, name: 'FAQ' })).toBeVisible()
  const answer = page.getByText('14 days, free, with no payment details asked.')
  await expect(answer).toBeHidden()
  await page.getByText('How long is the free trial, and what does it include?').click()
  await expect(answer).toBeVisible()
  await page.getByRole('main').getByRole('link', { name: 'Feedback form' }).first().click()
  await expect(page).toHaveURL('/account/contact-us')
})

test('the Feedback form checks the message, then sends it to support with a toast', async ({ page, request }) => {
  expectPageError(failedLoad(400, '/account/contact-us'))
  const owner = await signedInOwner(page)
  await page.goto('/account/contact-us')
  await expect(page.getByRole('heading', { level: 1, name: 'Feedback form' })).toBeVisible()
  await expect(page.getByRole('main').getByText(owner.email)).toBeVisible()
  const subject = unique('Where is my invoice')
  await page.getByLabel('Subject (optional)').fill(subject)
  await page.getByRole('button', { name: 'Send message' }).click()
  await expect(page.getByText('Write your message')).toBeVisible()
  await expect(page.getByLabel('Subject (optional)')).toHaveValue(subject)

  await page.getByLabel('Message').fill('I chose the Standard plan yesterday.')
  await page.getByRole('button', { name: 'Send message' }).click()
  await expect(page.getByRole('status').filter({ hasText: SENT })).toBeVisible()
  await expect(page).toHaveURL('/account/contact-us')
  await expect(page.getByLabel('Message')).toHaveValue('')
  const mail = await supportMail(request, (item) => item.subject === `[Stampwise account] ${subject}`, subject)
  expect(mail.text).toContain(owner.email)
  expect(mail.text).toContain('I chose the Standard plan yesterday.')
})

test('the notifications page lists a notice and marks it read', async ({ page }) => {
  const owner = await signedInOwner(page)
  await page.goto('/account/notifications')
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible()
  await expect(page.getByRole('main').getByText('No notifications yet.')).toBeVisible()

  const message = unique('Your payment was confirmed')
  await raiseNotice(owner, message)
  await page.reload()
  const item = page.getByRole('main').getByRole('listitem').filter({ hasText: message })
  await expect(item).toContainText('New')
  await expect(item.getByRole('link', { name: 'Open' })).toHaveAttribute('href', '/account/help')
  await item.getByRole('button', { name: 'Mark as read' }).click()
  await expect(item.getByRole('button', { name: 'Mark as read' })).toHaveCount(0)
  await expect(item).not.toContainText('New')
  const [row] = await sql<{ read: boolean }>('select read_at is not null as read from notices where user_id = $1', [
    owner.id,
  ])
  expect(row?.read).toBe(true)
})

test('the header’s bell shows the unread count and the newest notices, and marks all read', async ({ page }) => {
  const owner = await signedInOwner(page)
  const message = unique('Your trial ends in 3 days')
  await raiseNotice(owner, message, '/account/help')
  await raiseNotice(owner, unique('Your push was sent'), null)
  await page.goto('/account/contact-us')
  const bell = page.locator('.account-header .notification-bell')
  await expect(bell.locator('summary')).toContainText('Notifications, 2 unread')
  await bell.locator('summary').click()
  await expect(bell.getByRole('link', { name: message })).toHaveAttribute('href', '/account/help')
  await expect(bell.getByRole('link', { name: 'See all notifications' })).toHaveAttribute(
    'href',
    '/account/notifications',
  )
  await bell.getByRole('button', { name: 'Mark all as read' }).click()
  await expect(page).toHaveURL('/account/contact-us')
  await expect(page.locator('.account-header .notification-bell summary')).not.toContainText('unread')
})

test('the header’s feedback sender sends from any page and stays on it', async ({ page, request }, testInfo) => {
  await signedInOwner(page)
  await page.goto('/account/help')
  const sender = page.locator('.account-header .feedback-sender')
  await sender.locator('summary').click()
  const text = unique('The scan page is great')
  await sender.getByLabel('Your feedback').fill(text)
  await sender.getByRole('button', { name: 'Send' }).click()
  await expect(page).toHaveURL('/account/help')
  if (testInfo.project.name === 'js') {
    await expect(sender.getByRole('status')).toHaveText(SENT)
    await expect(sender.getByLabel('Your feedback')).toHaveValue('')
  } else {
    await expect(page.getByRole('status').filter({ hasText: SENT })).toBeVisible()
  }
  const mail = await supportMail(request, (item) => item.text.includes(text), text)
  expect(mail.subject).toBe('[Stampwise account] New message')
})
