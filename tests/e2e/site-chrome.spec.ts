import { expect, expectPageError, failedLoad, test } from '#tests/support/test.ts'

test('the top menu and footer lead to every public page', async ({ page }) => {
  await page.goto('/')
  const menu = page.getByRole('navigation', { name: 'Main', exact: true })
  await expect(menu.getByRole('link', { name: 'Product' })).toHaveAttribute('href', '/#product')
  await expect(menu.getByRole('link', { name: 'Pricing' })).toHaveAttribute('href', '/#pricing')
  await expect(menu.getByRole('link', { name: 'Help center' })).toHaveAttribute('href', '/#help')
  await expect(menu.getByRole('link', { name: 'Blog' })).toHaveAttribute('href', '/blog')
  await expect(page.getByRole('link', { name: 'Log in / Register' }).first()).toHaveAttribute('href', '/login')

  const footer = page.getByRole('contentinfo')
  for (const href of ['/blog', '/#pricing', '/about', '/contacts', '/feedback', '/privacy-policy', '/terms']) {
    await expect(footer.locator(`a[href="${href}"]`)).toHaveCount(1)
  }
  await expect(footer.locator('a[href^="mailto:"]')).toHaveCount(1)
  await expect(footer.getByRole('list', { name: 'Stampwise on social media' }).getByRole('link')).toHaveCount(5)
  await expect(footer).toContainText('Registered in England and Wales')
  await expect(footer).toContainText(`© ${new Date().getUTCFullYear()}`)
})

test('an unknown address shows the not-found page with status 404', async ({ page }) => {
  expectPageError(failedLoad(404, '/this/page/does-not-exist'))
  const response = await page.goto('/this/page/does-not-exist')
  expect(response?.status()).toBe(404)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("We can't find that page")
  await page.getByRole('main').getByRole('link', { name: 'Stampwise home' }).click()
  await expect(page).toHaveURL('/')
})
