import { createOwner, signIn } from '#tests/support/e2e-database.ts'
import { expect, expectPageError, failedLoad, test, type Page } from '#tests/support/test.ts'

/**
 * The card-creation onboarding as a new owner goes through it, with and without JavaScript: design (the preview
 * shows the card's title and colours), reward, then card_ready → your_qr_code → easy_way → place_your_qr → win_win;
 * and leaving after the design step, then opening /main again, asks whether to continue where the owner stopped
 * or to start a new card.
 */
const preview = (page: Page) => page.getByRole('complementary', { name: 'Preview' }).locator('.card-preview')

async function designCard(page: Page, colours = { background: '#7a1f1f', text: '#fff8e7' }) {
  await page.goto('/main')
  await expect(page.getByRole('heading', { name: 'Design your stamp card' })).toBeVisible()
  await expect(page.getByText('Step 1 of 7')).toBeVisible()
  await page.getByLabel('Business name').fill('Corner Coffee')
  await page.getByLabel('Card title').fill('Coffee card')
  await page.getByLabel('Background colour').fill(colours.background)
  await page.getByLabel('Text colour').fill(colours.text)
  await page.getByRole('radio', { name: 'coffee' }).check()
  await page.getByLabel('Stamps needed for the reward').fill('8')
  await page.getByRole('button', { name: 'Save and continue' }).click()
  await expect(page).toHaveURL(/\/card_reward\?cardId=[0-9a-f-]{36}$/)
  return new URL(page.url()).searchParams.get('cardId')!
}

test('a new owner designs a card, sets the reward and walks through to the end', async ({ page }, testInfo) => {
  expectPageError(failedLoad(400, '/card_reward'))
  const owner = await createOwner('onboarding')
  await signIn(page, owner)
  if (testInfo.project.name === 'js') {
    // With JavaScript the preview follows the form as the owner types, before anything is saved.
    await page.goto('/main')
    await page.getByLabel('Card title').fill('Typing…')
    await expect(preview(page)).toContainText('Typing…')
  }
  const cardId = await designCard(page)

  await expect(page.getByText('Step 2 of 7')).toBeVisible()
  await expect(preview(page)).toContainText('Coffee card')
  await expect(preview(page)).toContainText('Corner Coffee')
  await expect(preview(page)).toHaveCSS('background-color', 'rgb(122, 31, 31)')
  await expect(preview(page)).toHaveCSS('color', 'rgb(255, 248, 231)')
  await expect(preview(page).locator('.stamp')).toHaveCount(8)

  await page.getByRole('button', { name: 'Save and publish the card' }).click()
  await expect(page.getByText('Describe the reward')).toBeVisible()
  await page.getByLabel('Reward').fill('A free coffee')
  await page.getByLabel('Terms (optional)').fill('One stamp per visit.')
  await page.getByRole('button', { name: 'Save and publish the card' }).click()

  await expect(page).toHaveURL(`/card_ready?cardId=${cardId}`)
  await expect(page.getByRole('heading', { name: 'Your card is ready' })).toBeVisible()
  await expect(page.locator('.card-preview')).toContainText('A free coffee')
  await page.getByRole('button', { name: 'Get my QR code' }).click()

  await expect(page).toHaveURL(`/your_qr_code?cardId=${cardId}`)
  await expect(page.getByRole('img', { name: /^QR code for http.*\/c\/corner-coffee-[a-z0-9]{6}$/ })).toBeVisible()
  await expect(page.getByRole('link', { name: /Download the QR code/ })).toHaveAttribute(
    'href',
    `/account/${cardId}/qr_code`,
  )
  await page.getByRole('button', { name: 'How customers use it' }).click()

  await expect(page).toHaveURL(`/easy_way?cardId=${cardId}`)
  await expect(page.getByText('Tap ‘Get my card’')).toBeVisible()
  await expect(page.getByRole('link', { name: 'stamp page' })).toHaveAttribute('href', `/account/${cardId}/scan`)
  await page.getByRole('button', { name: 'Where to place the QR code' }).click()

  await expect(page).toHaveURL(`/place_your_qr?cardId=${cardId}`)
  await expect(page.getByRole('link', { name: 'poster with your QR code' })).toHaveAttribute(
    'href',
    `/account/${cardId}/qr_code`,
  )
  await page.getByRole('button', { name: 'Finish' }).click()

  await expect(page).toHaveURL(`/win_win?cardId=${cardId}`)
  await expect(page.getByRole('heading', { name: 'Win-win: you are all set' })).toBeVisible()
  await page.getByRole('button', { name: 'Go to my account' }).click()
  await expect(page).toHaveURL('/account')
  // Finished: /main now opens an empty designer for another card.
  await page.goto('/main')
  await expect(page).toHaveURL('/main')
  await expect(page.getByLabel('Business name')).toHaveValue('')
})

test('leaving after the design step and opening /main again offers to continue; the design stays editable', async ({
  page,
}, testInfo) => {
  const owner = await createOwner('resume')
  await signIn(page, owner)
  // Yellow on white: hard to read.
  const cardId = await designCard(page, { background: '#ffffff', text: '#ffee00' })
  await page.goto('/account')
  await page.goto('/main')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Continue your card or start a new one?')
  await page.getByRole('link', { name: 'Continue “Coffee card”' }).click()
  await expect(page).toHaveURL(`/card_reward?cardId=${cardId}`)
  await page.getByRole('link', { name: 'Back to the design' }).click()
  await expect(page).toHaveURL(`/main?cardId=${cardId}`)
  await expect(page.getByLabel('Business name')).toHaveValue('Corner Coffee')
  await expect(page.getByLabel('Background colour')).toHaveValue('#ffffff')
  await expect(page.getByText('Your text may be hard to read on this background')).toBeVisible()
  if (testInfo.project.name === 'js') {
    // The warning follows the colours as they change.
    await page.getByLabel('Text colour').fill('#222222')
    await expect(page.getByText('Your text may be hard to read on this background')).toHaveCount(0)
  }
  await page.getByRole('link', { name: 'Continue to the reward' }).click()
  await expect(page).toHaveURL(`/card_reward?cardId=${cardId}`)
})

test('Create a card with an unfinished draft asks first; starting a new one deletes the draft', async ({ page }) => {
  const owner = await createOwner('start-anew')
  await signIn(page, owner)
  const draftId = await designCard(page)
  await page.goto('/account')
  await page.getByRole('link', { name: 'Create a card' }).click()

  // Not the old card's reward step, silently: a question with two buttons, on a phone too.
  await expect(page).toHaveURL('/main')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Continue your card or start a new one?')
  await expect(page.getByText('You have not finished setting up “Coffee card”. It has no reward yet')).toBeVisible()
  await expect(page.getByRole('link', { name: 'Continue “Coffee card”' })).toHaveAttribute(
    'href',
    `/card_reward?cardId=${draftId}`,
  )
  await expect(page.getByText('Starting a new card deletes the unfinished draft “Coffee card”.')).toBeVisible()
  await page.setViewportSize({ width: 360, height: 740 })
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth),
    'no sideways scroll at 360 px',
  ).toBeLessThanOrEqual(360)

  await page.getByRole('button', { name: 'Delete the draft and start a new card' }).click()
  await expect(page).toHaveURL('/main?new')
  await expect(page.locator('.toast')).toContainText('The unfinished draft “Coffee card” is deleted.')
  await expect(page.getByRole('heading', { name: 'Design your stamp card' })).toBeVisible()
  await expect(page.getByLabel('Business name')).toHaveValue('')

  const newId = await designCard(page)
  expect(newId).not.toBe(draftId)
  await page.goto('/account')
  await expect(page.locator('.account-cards > li')).toHaveCount(1)
  await expect(page.locator(`a[href="/account/${draftId}"]`)).toHaveCount(0)
  await expect(page.locator(`a[href="/account/${newId}"]`)).toHaveCount(1)
})
