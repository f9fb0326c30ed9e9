import { createCard, createOwner, signIn, sql, type TestOwner } from '#tests/support/e2e-database.ts'
import { appServices } from '#tests/support/e2e-models.ts'
import { expect, test, type Page } from '#tests/support/test.ts'

/**
 * The plan box in each state of docs/product/plans-and-limits.md ("Plan box"), the profile menu, the back button, and
 * an owner's plan from choice to end: choose → waiting_payment → (an admin confirms, through the model) → active →
 * cancel → ended after the period, with the push gate closing and history staying open. With and without JavaScript.
 */
let services: Awaited<ReturnType<typeof appServices>>
test.beforeAll(async () => {
  services = await appServices()
})
test.afterAll(async () => {
  await services.close()
})

const planBox = (page: Page) => page.locator('.account-header .plan-box')

async function setSubscription(owner: TestOwner, fields: string) {
  await sql(`update subscriptions set ${fields} where user_id = $1`, [owner.id])
}

const PAID = (tier: number, months: number, endsIn: string) =>
  `tariff_id = (select id from tariffs where tier = ${tier}), period_months = ${months}, trial_ends_at = now() - interval '60 days',
   period_starts_at = now() - interval '10 days', period_ends_at = now() + interval '${endsIn}'`

const STATES: {
  name: string
  fields: string
  title: string | RegExp
  subtitle: string | RegExp
  menuHasPlan: boolean
}[] = [
  {
    name: 'trial',
    fields: `trial_ends_at = now() + interval '9 days 2 hours'`,
    title: '10 days free trial left',
    subtitle: 'Choose a plan for your business needs',
    menuHasPlan: false,
  },
  {
    name: 'trial over',
    fields: `trial_ends_at = now() - interval '1 hour'`,
    title: 'Trial over',
    subtitle: 'Upgrade your plan',
    menuHasPlan: true,
  },
  {
    name: 'active monthly',
    fields: `status = 'active', ${PAID(2, 1, '20 days')}`,
    title: 'Standard Plan',
    subtitle: 'Renews monthly',
    menuHasPlan: true,
  },
  {
    name: 'active yearly',
    fields: `status = 'active', ${PAID(3, 12, '200 days')}`,
    title: 'Premium Plan',
    subtitle: 'Renews yearly',
    menuHasPlan: true,
  },
  {
    name: 'cancelled',
    fields: `status = 'cancelled', ${PAID(1, 1, '5 days')}`,
    title: 'Basic Plan',
    subtitle: /^Ends on \d{1,2} \w+ \d{4}$/,
    menuHasPlan: true,
  },
  {
    name: 'ended',
    fields: `status = 'ended', ${PAID(1, 1, '-5 days')}`,
    title: 'Basic Plan',
    subtitle: 'Access to Stampwise is limited',
    menuHasPlan: true,
  },
]

for (const state of STATES) {
  test(`plan box: ${state.name}`, async ({ page }) => {
    const owner = await createOwner('plan-box')
    await setSubscription(owner, state.fields)
    await signIn(page, owner)
    await page.goto('/account')
    await expect(planBox(page).locator('.plan-box__title')).toHaveText(state.title)
    await expect(planBox(page).locator('.plan-box__subtitle')).toHaveText(state.subtitle)
    await expect(planBox(page).getByRole('link', { name: 'View plans' })).toHaveAttribute('href', '/account/tariffs')
    // The profile menu opens without JavaScript too (details/summary); Plan details is hidden during the trial.
    await page.locator('.profile-menu summary').click()
    const menu = page.getByRole('navigation', { name: 'Profile' })
    await expect(menu.getByRole('link', { name: 'Profile settings' })).toBeVisible()
    await expect(menu.getByRole('link', { name: 'Plan details' })).toHaveCount(state.menuHasPlan ? 1 : 0)
    for (const name of ['FAQ', 'Contact us']) await expect(menu.getByRole('link', { name })).toBeVisible()
    await expect(menu.getByRole('button', { name: 'Log Out' })).toBeVisible()
  })
}

test('back button: hidden on /account, to /account from Pricing, one step back elsewhere', async ({ page }) => {
  const owner = await createOwner('back')
  await signIn(page, owner)
  await page.goto('/account')
  await expect(page.locator('.back-button')).toHaveCount(0)
  await page.goto('/account/help')
  await page.goto('/account/tariffs')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pricing')
  await page.locator('.back-button').click()
  await expect(page).toHaveURL('/account')
  await page.goto('/account/plan')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Plan details')
  await expect(page.locator('.back-button')).toBeVisible()
})

test('an owner chooses a plan, is confirmed, cancels, and the plan ends after its period', async ({ page }) => {
  test.setTimeout(90_000)
  const owner = await createOwner('journey')
  const card = await createCard(owner.id)
  await signIn(page, owner)

  await page.goto('/account')
  await planBox(page).getByRole('link', { name: 'View plans' }).click()
  await expect(page).toHaveURL('/account/tariffs')
  await page.getByRole('button', { name: 'Pay by bank transfer: Standard, monthly' }).click()
  await expect(page).toHaveURL('/account/plan')
  const invoice = page.locator('.invoice')
  await expect(invoice.getByRole('heading', { level: 2 })).toHaveText(/^Invoice SW-\d{4}-\d{6}$/)
  await expect(invoice).toContainText('$39')
  await expect(invoice).toContainText('Waiting for payment')
  await expect(page.locator('main')).not.toContainText('waiting_payment')
  await expect(invoice).toContainText('Pay by bank transfer')
  await expect(page.locator('.toast')).toContainText('is ready: pay it to start your plan')

  // The admin marks the invoice paid (the admin pages come later; the rule is the same).
  const open = await services.getOpenInvoiceForUser(owner.id)
  await services.confirmPayment({ invoiceId: open!.id, actorId: null })
  await page.goto('/account/plan')
  await expect(planBox(page).locator('.plan-box__title')).toHaveText('Standard Plan')
  await expect(planBox(page).locator('.plan-box__subtitle')).toHaveText('Renews monthly')
  await expect(page.locator('.invoice')).toHaveCount(0)

  await page.getByText('Cancel plan', { exact: true }).first().click()
  await page.getByLabel('I understand, cancel my plan').check()
  await page.getByRole('button', { name: 'Cancel plan' }).click()
  await expect(page.locator('.toast')).toContainText('Your plan is cancelled. It runs until')
  await expect(planBox(page).locator('.plan-box__subtitle')).toHaveText(/^Ends on /)
  await expect(page.locator('.plan-status')).toHaveText('Cancelled (runs until the end of the period)')

  // The period runs out; the scheduled job ends the plan.
  await setSubscription(owner, `period_ends_at = now() - interval '1 minute'`)
  await services.runPlanHousekeeping()
  await page.goto('/account/plan')
  await expect(planBox(page).locator('.plan-box__subtitle')).toHaveText('Access to Stampwise is limited')
  await expect(page.locator('.plan-status')).toHaveText('Ended')

  await page.goto(`/account/${card.id}/push_notification`)
  await expect(page).toHaveURL('/account/limits_trial')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your plan has ended')
  await page.goto(`/account/${card.id}/push_notification/history`)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Notifications history')
})

test('confetti when a plan becomes active, once, and never under reduced motion', async ({
  page,
  browser,
}, testInfo) => {
  test.skip(testInfo.project.name === 'no-js', 'confetti needs JavaScript')
  const owner = await createOwner('confetti')
  await setSubscription(owner, `status = 'waiting_payment', access_ends_at = trial_ends_at`)
  await services.confirmPayment({
    invoiceId: (
      await sql<{ id: string }>(
        `insert into invoices (number, subscription_id, tariff_id, period_months, amount_cents, reason)
         select 'SW-TEST-' || substr(md5(random()::text), 1, 8), s.id, t.id, 1, t.monthly_price_cents, 'new'
         from subscriptions s, tariffs t where s.user_id = $1 and t.tier = 1 returning id`,
        [owner.id],
      )
    )[0]!.id,
    actorId: null,
  })
  await signIn(page, owner)
  await page.goto('/account')
  await expect(page.locator('canvas.celebration-canvas')).toHaveAttribute('data-playing', /true|false/)
  await page.reload()
  await expect(page.locator('canvas.celebration-canvas')).not.toHaveAttribute('data-playing')

  const calm = await browser.newContext({ reducedMotion: 'reduce', baseURL: testInfo.project.use.baseURL })
  const calmPage = await calm.newPage()
  await signIn(calmPage, owner)
  await calmPage.goto('/account')
  await expect(calmPage.locator('.plan-box__title')).toHaveText('Basic Plan')
  await expect(calmPage.locator('canvas.celebration-canvas')).not.toHaveAttribute('data-playing')
  await calm.close()
})
