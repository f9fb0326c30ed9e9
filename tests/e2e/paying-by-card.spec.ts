import { createOwner, signIn, sql, type TestOwner } from '#tests/support/e2e-database.ts'
import { measureWidth, PHONE_WIDTHS } from '#tests/support/page-width.ts'
import { expect, expectPageError, failedLoad, test, type Page } from '#tests/support/test.ts'

/**
 * Issue 33's browser proof (docs/product/paying-by-card.md): an owner chooses a plan by card, pays on Stripe's page
 * (the peer's stand-in, tests/support/stripe-peer-server.ts), comes back and sees the plan active; 'Manage billing'
 * opens the portal and comes back; a declined card changes nothing. With and without JavaScript: the 303s to Stripe
 * leave the app from a form, which the CSP's form-action must allow. The bank transfer beside it is in
 * account-plans.spec.ts, and the card pages on a phone here.
 */
const STRIPE_ORIGIN = `http://127.0.0.1:${process.env.E2E_STRIPE_PORT ?? 4550}`
const planBox = (page: Page) => page.locator('.account-header .plan-box')
const status = async (owner: TestOwner) =>
  (
    await sql<{ status: string; provider: string }>(`select status, provider from subscriptions where user_id = $1`, [
      owner.id,
    ])
  )[0]!

/** Nothing on the page reaches past the right edge of a phone's screen (the walk's own measure). */
async function expectPhoneFit(page: Page) {
  for (const width of PHONE_WIDTHS) {
    expect(await measureWidth(page, width), `${page.url()} at ${width} px`).toMatchObject({ beyondRightEdge: [] })
  }
}

test.afterEach(async () => {
  // Nothing the app sent to Stripe was outside the contract, or refused as the real API would.
  const violations = await (await fetch(`${STRIPE_ORIGIN}/peer/violations`)).json()
  expect(violations).toEqual([])
})

test('in the trial: Pay by card → Stripe’s page → Pay → back, the plan active; Manage billing and back', async ({
  page,
}) => {
  const owner = await createOwner('card')
  await signIn(page, owner)
  await page.goto('/account/tariffs')
  await expect(planBox(page).locator('.plan-box__title')).toHaveText(/days free trial left$/)
  await page.getByRole('button', { name: 'Pay by card: Standard, yearly' }).click()

  await expect(page).toHaveURL(new RegExp(`^${STRIPE_ORIGIN}/pay/cs_test_`))
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pay 390.00 USD a year')
  await page.getByRole('button', { name: 'Pay', exact: true }).click()

  await expect(page).toHaveURL(/\/account\/plan\?checkout=cs_test_/)
  await expect(page.getByRole('status').first()).toHaveText(
    'Thank you: your card payment is confirmed and your Standard Plan is active.',
  )
  // A plan is chosen and paid for: the header no longer counts the trial's days.
  await expect(planBox(page).locator('.plan-box__title')).toHaveText('Standard Plan')
  await expect(planBox(page).locator('.plan-box__subtitle')).toHaveText('Renews yearly')
  await expect(page.locator('main')).toContainText('Visa ending in 4242')
  expect(await status(owner)).toEqual({ status: 'active', provider: 'stripe' })
  // The card plan's pages on a phone: the card, the invoices and Manage billing; the pricing with both ways to pay.
  await expectPhoneFit(page)
  await page.goto('/account/tariffs')
  await expect(page.getByRole('link', { name: 'Your plan (yearly): details' })).toBeVisible()
  await expectPhoneFit(page)
  await page.goto('/account/plan')

  await page.getByRole('button', { name: 'Manage billing' }).click()
  await expect(page).toHaveURL(new RegExp(`^${STRIPE_ORIGIN}/portal/`))
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Manage billing')
  await page.getByRole('link', { name: 'Return to Stampwise' }).click()
  await expect(page).toHaveURL('/account/plan')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Plan details')
})

test('back before Stripe’s webhook: “being confirmed”, then the plan by itself (with JavaScript) or on reload', async ({
  page,
}, testInfo) => {
  const owner = await createOwner('confirming')
  await signIn(page, owner)
  await page.goto('/account/tariffs')
  await page.getByRole('button', { name: 'Pay by card: Basic, monthly' }).click()
  await expect(page).toHaveURL(new RegExp(`^${STRIPE_ORIGIN}/pay/cs_test_`))
  const payAt = page.url()
  const sessionId = payAt.split('/').at(-1)!

  // The return address is reached before Stripe has said anything: it changes nothing and says so.
  await page.goto(`/account/plan?checkout=${sessionId}`)
  await expect(page.getByRole('status').first()).toContainText('Your payment is being confirmed')
  expect((await status(owner)).status).toBe('trial')

  // Now the payment goes through at Stripe (the peer sends its events to the webhook).
  const paid = await fetch(payAt, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'outcome=pay',
  })
  expect(paid.status).toBe(303)
  const thanks = 'Thank you: your card payment is confirmed and your Basic Plan is active.'
  if (testInfo.project.name === 'no-js') {
    await page.getByRole('link', { name: 'Reload' }).click()
  }
  await expect(page.getByRole('status').first()).toHaveText(thanks, { timeout: 10_000 })
  await expect(planBox(page).locator('.plan-box__title')).toHaveText('Basic Plan')
})

test('a declined card says so at Stripe and changes nothing; Back returns to the pricing', async ({ page }) => {
  expectPageError(failedLoad(402, /^\/pay\/cs_test_/))
  const owner = await createOwner('declined')
  await signIn(page, owner)
  await page.goto('/account/tariffs')
  await page.getByRole('button', { name: 'Pay by card: Premium, monthly' }).click()
  await expect(page).toHaveURL(new RegExp(`^${STRIPE_ORIGIN}/pay/cs_test_`))
  await page.getByRole('button', { name: 'Pay with a declined card' }).click()
  await expect(page.getByRole('alert')).toHaveText('Your card was declined.')
  await page.getByRole('link', { name: 'Back' }).click()
  await expect(page).toHaveURL('/account/tariffs')
  await expect(planBox(page).locator('.plan-box__title')).toHaveText(/days free trial left$/)
  expect(await status(owner)).toEqual({ status: 'trial', provider: 'manual' })
})
