import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { expect, expectPageError, failedLoad, test, type Page } from '#tests/support/test.ts'

/*
 * Issue #7's journey, with JavaScript and without: an admin finds an owner by e-mail, confirms their payment,
 * grants them push messages and edits their card; the owner sees each change in their account, and the owner's
 * audit log on the admin page shows the three actions with the admin's e-mail.
 */

const section = (page: Page, name: string) => page.getByRole('region', { name })

async function confirmAndSubmit(page: Page, formName: string, button: string, fill?: { label: string; value: string }) {
  const form = page.getByRole('form', { name: formName })
  if (fill) await form.getByLabel(fill.label).fill(fill.value)
  await form.getByRole('checkbox', { name: /I confirm/ }).check()
  await form.getByRole('button', { name: button }).click()
}

test('an admin finds an owner, confirms the payment, grants messages and edits the card; the owner sees it all', async ({
  browser,
  page,
}, testInfo) => {
  expectPageError(failedLoad(400, /^\/admin\/users\/[0-9a-f-]{36}$/))
  const javaScriptEnabled = testInfo.project.use.javaScriptEnabled !== false
  const owner = await createOwner('admin-journey')
  const card = await createCard(owner.id, { title: 'Coffee card', businessName: 'Corner Coffee' })
  const admin = await createOwner('admin')
  await sql(`update users set role = 'admin' where id = $1`, [admin.id])

  // The owner chooses a plan: an invoice waits for payment.
  const ownerContext = await browser.newContext({ javaScriptEnabled })
  const ownerPage = await ownerContext.newPage()
  await signIn(ownerPage, owner)
  await ownerPage.goto('/account/tariffs')
  await ownerPage.getByRole('button', { name: 'Pay by bank transfer: Standard, monthly' }).click()
  await expect(ownerPage).toHaveURL('/account/plan')

  // The admin finds the owner by the start of the e-mail.
  await signIn(page, admin)
  await page.goto('/admin')
  await page.getByLabel('E-mail').fill(owner.email.slice(0, 18))
  await page.getByRole('button', { name: 'Search' }).click()
  await expect(page).toHaveURL(/\/admin\?/)
  await page.getByRole('link', { name: owner.email }).click()
  await expect(page).toHaveURL(`/admin/users/${owner.id}`)
  await expect(page.getByRole('heading', { level: 1 })).toContainText(owner.email)

  // Without the confirmation box, nothing happens; with it, the payment is confirmed.
  await page.getByRole('form', { name: 'Confirm a payment' }).getByRole('button', { name: 'Confirm payment' }).click()
  await expect(page.getByRole('form', { name: 'Confirm a payment' })).toBeVisible()
  expect(
    (await sql<{ status: string }>(`select status from subscriptions where user_id = $1`, [owner.id]))[0]!.status,
  ).toBe('waiting_payment')
  await confirmAndSubmit(page, 'Confirm a payment', 'Confirm payment')
  await expect(section(page, 'Subscription')).toContainText('active')

  await confirmAndSubmit(page, 'Grant push messages', 'Grant messages', {
    label: 'Messages to add (1–1000)',
    value: '25',
  })
  await expect(section(page, 'Subscription')).toContainText('25')

  await section(page, 'Cards').getByRole('link', { name: 'Edit card' }).click()
  await expect(page).toHaveURL(`/admin/users/${owner.id}/cards/${card.id}/edit`)
  await page.getByLabel('Card title').fill('Espresso club')
  await page.getByRole('button', { name: 'Save the card' }).click()
  await expect(page).toHaveURL(`/admin/users/${owner.id}`)

  // The audit log names the three actions and who did them.
  const audit = section(page, 'Audit log')
  for (const action of ['payment.confirm', 'quota.grant', 'card.edit']) {
    await expect(audit.getByRole('row').filter({ hasText: action }).filter({ hasText: admin.email })).toHaveCount(1)
  }

  // The owner sees each change.
  await ownerPage.goto('/account/plan')
  await expect(ownerPage.getByRole('heading', { level: 1 })).toHaveText('Plan details')
  await expect(ownerPage.locator('.plan-box')).toContainText('Standard Plan')
  await expect(ownerPage.getByText('Additional push messages')).toBeVisible()
  await expect(ownerPage.locator('dt:has-text("Additional push messages") + dd')).toHaveText('25')
  await ownerPage.goto(`/account/${card.id}`)
  await expect(ownerPage.locator('.card-preview')).toContainText('Espresso club')
  await ownerContext.close()
})

test('an owner cannot open the admin area; a guest is sent to sign in', async ({ page }) => {
  expectPageError(failedLoad(403, /^\/admin\/users\/[0-9a-f-]{36}$/))
  const owner = await createOwner('not-admin')
  const guest = await page.goto('/admin')
  expect(guest?.url()).toContain('/login?redirectTo=%2Fadmin')
  await signIn(page, owner)
  const answer = await page.goto(`/admin/users/${owner.id}`)
  expect(answer?.status()).toBe(403)
  await expect(page.getByRole('heading', { name: "You can't open this page" })).toBeVisible()
})
