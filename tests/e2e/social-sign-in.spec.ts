import { expect, expectPageError, failedLoad, test } from '#tests/support/test.ts'

// Google and Apple are local OpenID providers here (tests/support/oidc-provider-server.ts, started by Playwright):
// their account page asks which e-mail to sign in as. Each run signs in a new owner, who lands on /main.
for (const provider of ['Google', 'Apple'] as const) {
  test(`'Login with ${provider}' on /login signs a new owner in and lands on /main`, async ({ page }, testInfo) => {
    // The local OpenID provider's sign-in page has no icon.
    expectPageError(failedLoad(404, '/favicon.ico'))
    const email = `${provider.toLowerCase()}-${testInfo.project.name}-${Date.now()}@example.com`
    await page.goto('/login')
    await page.getByRole('link', { name: `Login with ${provider}` }).click()

    await expect(page.getByRole('heading', { name: 'Choose an account' })).toBeVisible()
    await page.getByLabel('E-mail').fill(email)
    await page.getByRole('button', { name: 'Continue' }).click()
    if (provider === 'Apple') {
      // Apple answers with a form POST from its own site back to /auth_apple.
      await expect(page.getByRole('heading', { name: 'Continue' })).toBeVisible()
      await page.getByRole('button', { name: 'Continue' }).click()
    }

    await expect(page).toHaveURL('/main')
    await expect(page.getByRole('heading', { name: 'Design your stamp card' })).toBeVisible()
    await page.goto('/account')
    await expect(page).toHaveURL('/account')
    await expect(page.locator('.profile-menu__email')).toHaveText(email)
  })
}

test('Apple: a state and code obtained in one browser are refused in another, with a message and no session', async ({
  page,
  browser,
}, testInfo) => {
  // The local OpenID provider's sign-in page has no icon.
  expectPageError(failedLoad(404, '/favicon.ico'))
  const email = `apple-bound-${testInfo.project.name}-${Date.now()}@example.com`
  await page.goto('/login')
  await page.getByRole('link', { name: 'Login with Apple' }).click()
  await page.getByLabel('E-mail').fill(email)
  await page.getByRole('button', { name: 'Continue' }).click()
  // Apple's page that posts code and state back: its address carries them, as a stranger could copy them.
  await expect(page.getByRole('heading', { name: 'Continue' })).toBeVisible()
  const answerPage = page.url()

  const other = await browser.newContext({ javaScriptEnabled: testInfo.project.use.javaScriptEnabled })
  try {
    const victim = await other.newPage()
    await victim.goto(answerPage)
    await victim.getByRole('button', { name: 'Continue' }).click()
    await expect(victim).toHaveURL('/login')
    await expect(
      victim.getByText('This sign-in with Apple was started in another browser. Please try again here.'),
    ).toBeVisible()
    expect((await other.cookies()).some((cookie) => cookie.name === '__session')).toBe(false)
    await victim.goto('/account')
    await expect(victim).toHaveURL('/login?redirectTo=%2Faccount')
  } finally {
    await other.close()
  }

  // The refused state is used up: the browser that started it is told to try again, and is not signed in either.
  await page.getByRole('button', { name: 'Continue' }).click()
  await expect(page).toHaveURL('/login')
  await expect(page.getByText('This sign-in with Apple is no longer valid')).toBeVisible()
})
