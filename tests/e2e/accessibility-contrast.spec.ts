import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { expect, expectPageError, failedLoad, test, type Page } from '#tests/support/test.ts'

/*
 * Issue #8, accessibility: the card builder warns when the card's text is hard to read on its background (WCAG
 * contrast below 4.5:1) — live as the colours change with JavaScript, and after the submit without it — and
 * saves the design all the same (a warning, not a refusal: decision 015).
 */
const WARNING = /Your text may be hard to read on this background: contrast 1\.\d:1/
const warning = (page: Page) => page.getByRole('status').filter({ hasText: 'hard to read' })

async function fillDesign(page: Page, colours: { background: string; text: string }, businessName = 'Corner Coffee') {
  await page.getByLabel('Business name').fill(businessName)
  await page.getByLabel('Card title').fill('Coffee card')
  await page.getByLabel('Background colour').fill(colours.background)
  await page.getByLabel('Text colour').fill(colours.text)
}

test('yellow text on white: warned before saving with JavaScript, on the next step in both cases, and saved', async ({
  page,
}, testInfo) => {
  const owner = await createOwner('contrast')
  await signIn(page, owner)
  await page.goto('/main')
  await fillDesign(page, { background: '#ffffff', text: '#ffee00' })
  if (testInfo.project.name === 'js') {
    // Live: it appears, goes when the text is dark enough, and comes back.
    await expect(warning(page)).toHaveText(WARNING)
    await page.getByLabel('Text colour').fill('#222222')
    await expect(warning(page)).toHaveCount(0)
    await page.getByLabel('Text colour').fill('#ffee00')
    await expect(warning(page)).toHaveText(WARNING)
  } else {
    // Without JavaScript nothing can follow the inputs: the saved default design reads well.
    await expect(warning(page)).toHaveCount(0)
  }
  await page.getByRole('button', { name: 'Save and continue' }).click()
  await expect(page).toHaveURL(/\/card_reward\?cardId=[0-9a-f-]{36}$/)
  await expect(warning(page)).toHaveText(WARNING)
  const cardId = new URL(page.url()).searchParams.get('cardId')!
  const [card] = await sql<{ background_color: string; text_color: string }>(
    `select background_color, text_color from cards where id = $1`,
    [cardId],
  )
  expect(card).toEqual({ background_color: '#ffffff', text_color: '#ffee00' })
})

test('readable colours: no warning, before or after saving', async ({ page }) => {
  const owner = await createOwner('contrast-ok')
  await signIn(page, owner)
  await page.goto('/main')
  await fillDesign(page, { background: '#1f3a5f', text: '#ffffff' })
  await expect(warning(page)).toHaveCount(0)
  await page.getByRole('button', { name: 'Save and continue' }).click()
  await expect(page).toHaveURL(/\/card_reward\?cardId=/)
  await expect(page.getByRole('complementary', { name: 'Preview' }).locator('.card-preview')).toBeVisible()
  await expect(warning(page)).toHaveCount(0)
})

test('without JavaScript, a refused submit shows the warning for the submitted colours, not the saved ones', async ({
  page,
}, testInfo) => {
  expectPageError(failedLoad(400, '/main'))
  test.skip(
    testInfo.project.name === 'js',
    'with JavaScript the form is checked before it is sent, and the warning is live',
  )
  const owner = await createOwner('contrast-400')
  await signIn(page, owner)
  await page.goto('/main')
  // No business name: the server answers 400 and renders the form again.
  await fillDesign(page, { background: '#ffffff', text: '#ffee00' }, '')
  await page.getByRole('button', { name: 'Save and continue' }).click()
  await expect(page).toHaveURL('/main')
  await expect(page.getByLabel('Text colour')).toHaveValue('#ffee00')
  await expect(warning(page)).toHaveText(WARNING)
})

test("an admin's card edit warns in the designer and in the message after saving", async ({ page }, testInfo) => {
  const owner = await createOwner('contrast-owner')
  const card = await createCard(owner.id)
  const admin = await createOwner('contrast-admin')
  await sql(`update users set role = 'admin' where id = $1`, [admin.id])
  await signIn(page, admin)
  await page.goto(`/admin/users/${owner.id}/cards/${card.id}/edit`)
  await page.getByLabel('Background colour').fill('#ffffff')
  await page.getByLabel('Text colour').fill('#ffee00')
  if (testInfo.project.name === 'js') await expect(warning(page)).toHaveText(WARNING)
  await page.getByRole('button', { name: 'Save the card' }).click()
  await expect(page).toHaveURL(`/admin/users/${owner.id}`)
  await expect(
    page.getByText(/Card “Coffee card” saved\. Your text may be hard to read on this background: contrast 1\.\d:1/),
  ).toBeVisible()
})
