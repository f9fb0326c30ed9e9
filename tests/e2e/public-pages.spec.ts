import { expect, expectPageError, failedLoad, test } from '#tests/support/test.ts'

// Each test runs twice (playwright.config.ts): with JavaScript, and with JavaScript turned off.

test('the top menu reaches each section of the landing page, and the blog', async ({ page }) => {
  await page.goto('/')
  const menu = page.getByRole('navigation', { name: 'Main', exact: true })
  const sections = [
    ['Product', '/#product', 'From paper card to phone in an afternoon'],
    ['Pricing', '/#pricing', 'Simple plans, no surprises'],
    ['Help center', '/#help', 'Questions owners ask us'],
  ] as const
  for (const [link, url, heading] of sections) {
    await menu.getByRole('link', { name: link }).click()
    await expect(page).toHaveURL(url)
    await expect(page.getByRole('heading', { level: 2, name: heading })).toBeInViewport()
  }
  await menu.getByRole('link', { name: 'Blog' }).click()
  await expect(page).toHaveURL('/blog')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('The Stampwise blog')
})

test('the footer leads to the about, legal, support and feedback pages', async ({ page }) => {
  test.slow()
  const pages = [
    ['About us', '/about', 'About Stampwise'],
    ['Terms of service', '/terms', 'Terms of service'],
    ['Privacy policy', '/privacy-policy', 'Privacy policy'],
    ['Support', '/contacts', 'Contact us'],
    ['Feedback', '/feedback', 'Share your feedback'],
  ] as const
  for (const [link, url, heading] of pages) {
    await page.goto('/')
    await page.getByRole('contentinfo').getByRole('link', { name: link, exact: true }).click()
    await expect(page).toHaveURL(url)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading)
  }
})

test('on a phone the menu folds into a button that opens and navigates', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto('/blog')
  await expect(page.getByRole('navigation', { name: 'Main', exact: true })).toBeHidden()
  const compact = page.getByRole('navigation', { name: 'Main (compact)' })
  await expect(compact).toBeHidden()

  await page.locator('summary').filter({ hasText: 'Open the menu' }).click()
  await expect(compact).toBeVisible()
  await compact.getByRole('link', { name: 'Pricing' }).click()
  await expect(page).toHaveURL('/#pricing')
  await expect(page.getByRole('heading', { level: 2, name: 'Simple plans, no surprises' })).toBeInViewport()
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
})

test('the contact form names each missing field, then confirms the message', async ({ page, javaScriptEnabled }) => {
  expectPageError(failedLoad(400, '/contacts'))
  await page.goto('/contacts')
  const send = page.getByRole('button', { name: 'Send message' })
  await send.click()
  const name = page.getByLabel('Your name')
  await expect(name).toHaveAttribute('aria-invalid', 'true')
  await expect(name).toHaveAccessibleDescription('Enter your name')
  for (const message of ['Enter a valid email address', 'Enter a subject', 'Write your message']) {
    await expect(page.getByText(message, { exact: true })).toBeVisible()
  }

  await name.fill('Maria Rossi')
  // With JavaScript the error goes as soon as the field is edited; without it, at the next submission.
  if (javaScriptEnabled) await expect(page.getByText('Enter your name', { exact: true })).toBeHidden()
  await page.getByLabel('Your e-mail', { exact: true }).fill('maria@example.com')
  await page.getByLabel('Subject', { exact: true }).fill('Printing the QR poster')
  await page.getByLabel('Message', { exact: true }).fill('Which paper size works best for the poster on the counter?')
  await send.click()

  await expect(page).toHaveURL('/contacts?sent=1')
  await expect(page.getByRole('status').filter({ hasText: 'Thank you' })).toContainText(
    'Thank you, your message has been sent',
  )
  await expect(page.getByRole('button', { name: 'Send message' })).toHaveCount(0)
})

test('the feedback form asks for a message, then thanks for the feedback', async ({ page }) => {
  expectPageError(failedLoad(400, '/feedback'))
  await page.goto('/feedback')
  await expect(page.getByRole('link', { name: 'Stampwise home' })).toHaveAttribute('href', '/')
  await page.getByLabel('Your e-mail (optional)').fill('not-an-address')
  await page.getByRole('button', { name: 'Send feedback' }).click()
  await expect(page.getByLabel('Your feedback')).toHaveAccessibleDescription('Tell us what you think')
  await expect(page.getByLabel('Your e-mail (optional)')).toHaveAttribute('aria-invalid', 'true')

  await page.getByLabel('4 – Very good').check()
  await page.getByLabel('Your feedback').fill('Stamping by short code is quick at a busy counter.')
  await page.getByLabel('Your e-mail (optional)').fill('maria@example.com')
  await page.getByRole('button', { name: 'Send feedback' }).click()

  await expect(page).toHaveURL('/feedback?sent=1')
  await expect(page.getByRole('status').filter({ hasText: 'Thank you' })).toContainText('Thank you for your feedback!')
})

test('a reader goes from the blog list to a post and back', async ({ page }) => {
  await page.goto('/blog')
  const firstPost = page.getByRole('main').getByRole('listitem').first().getByRole('link')
  const title = (await firstPost.textContent()) ?? ''
  await firstPost.click()
  await expect(page).toHaveURL(/\/blog\/[a-z0-9-]+$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title)
  await expect(page.getByRole('article').getByRole('heading', { level: 2 }).first()).toBeVisible()

  await page.getByRole('link', { name: 'All posts' }).click()
  await expect(page).toHaveURL('/blog')
  await page.goBack()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title)
  await page.goBack()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('The Stampwise blog')
})

test('an unknown blog post shows the not-found page with status 404', async ({ page }) => {
  expectPageError(failedLoad(404, '/blog/no-such-post'))
  const response = await page.goto('/blog/no-such-post')
  expect(response?.status()).toBe(404)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("We can't find that page")
})
