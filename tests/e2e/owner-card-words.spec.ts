import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { measureWidth } from '#tests/support/page-width.ts'
import { expect, test } from '#tests/support/test.ts'

/**
 * Issue 30, items 6 and 7, with JavaScript and without, on a 360 px phone: editing a published card stays in the
 * account (no wizard), and a card that reaches nobody says so once before the owner writes, with Send disabled on
 * the confirm page.
 */
test.use({ viewport: { width: 360, height: 740 } })

test('a published card is edited in the account, not in the onboarding wizard', async ({ page }) => {
  const owner = await createOwner('card-edit')
  const card = await createCard(owner.id, { title: 'Coffee card' })
  await signIn(page, owner)
  await page.goto(`/account/${card.id}`)
  await page.getByRole('main').getByRole('link', { name: 'Edit card', exact: true }).click()
  await expect(page).toHaveURL(`/account/${card.id}/edit`)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Edit “Coffee card”')
  await expect(page.getByText(/Step \d of \d/)).toHaveCount(0)
  expect((await measureWidth(page, 360)).scrollWidth).toBeLessThanOrEqual(360)

  await page.getByLabel('Card title', { exact: true }).fill('Espresso club')
  await page.getByLabel('Reward', { exact: true }).fill('A free espresso')
  await page.getByRole('button', { name: 'Save', exact: true }).click()
  await expect(page).toHaveURL(`/account/${card.id}`)
  await expect(page.getByText('Card saved. Your holders’ cards show the change.')).toBeVisible()
  const [row] = await sql<{ title: string; reward: string }>(`select title, reward from cards where id = $1`, [card.id])
  expect(row).toEqual({ title: 'Espresso club', reward: 'A free espresso' })
})

test('a card that reaches nobody says so before the owner writes, and Send is disabled', async ({ page }) => {
  const owner = await createOwner('no-reach')
  const card = await createCard(owner.id)
  await signIn(page, owner)
  await page.goto(`/account/${card.id}/push_notification/create`)
  const notice = page.getByRole('heading', { name: 'Nobody can receive a message from this card yet' })
  await expect(notice).toHaveCount(1)
  await expect(page.getByText('After a stamp, ask them to tap ‘Turn on notifications’ on their card.')).toBeVisible()
  expect((await measureWidth(page, 360)).scrollWidth).toBeLessThanOrEqual(360)

  await page.getByRole('main').getByLabel('Title', { exact: true }).fill('Double stamps')
  await page.getByRole('main').getByLabel('Message', { exact: true }).fill('Only today!')
  await page.getByRole('button', { name: 'Continue' }).click()
  await expect(page).toHaveURL(/\/confirm\/[0-9a-f-]{36}$/)
  await expect(notice).toHaveCount(1)
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeDisabled()
  await expect(page.getByRole('alert')).toHaveCount(0)
  expect((await measureWidth(page, 360)).scrollWidth).toBeLessThanOrEqual(360)
})
