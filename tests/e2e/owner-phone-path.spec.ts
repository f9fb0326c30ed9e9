import { createCard, createOwner, signIn } from '#tests/support/e2e-database.ts'
import { measureWidth } from '#tests/support/page-width.ts'
import { expect, test, type Locator } from '#tests/support/test.ts'

/**
 * Issue 30, item 2 and the tiles of item 7, with JavaScript and without, on a 360 × 740 phone: 'Stamp a card' is the
 * first action on the card page and on each card of the account home, in the first screenful, and it leads to the
 * card's scan page; the insight tiles lay out in even rows (never 7 + 1).
 */
test.use({ viewport: { width: 360, height: 740 } })

async function inFirstScreenful(locator: Locator) {
  await expect(locator).toBeVisible()
  const box = await locator.boundingBox()
  expect(box, 'laid out').not.toBeNull()
  expect(box!.y + box!.height, 'bottom edge within the first 740 px').toBeLessThanOrEqual(740)
}

test('stamping is the first action on the card page and on each card of the home', async ({ page }) => {
  const owner = await createOwner('phone-path')
  const first = await createCard(owner.id, { title: 'Coffee card' })
  await createCard(owner.id, { title: 'Cake card' })
  await signIn(page, owner)

  await page.goto(`/account/${first.id}`)
  const stamp = page.getByRole('main').getByRole('link', { name: 'Stamp a card', exact: true })
  await expect(stamp).toHaveCount(1)
  await inFirstScreenful(stamp)
  expect((await measureWidth(page, 360)).scrollWidth).toBeLessThanOrEqual(360)

  // Eight tiles: four rows of two on the phone, two rows of four on a desktop.
  const tiles = page.locator('.insight-figure')
  await expect(tiles).toHaveCount(8)
  for (const [width, perRow] of [
    [360, 2],
    [1280, 4],
  ] as const) {
    await page.setViewportSize({ width, height: 740 })
    const tops = await tiles.evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().top))
    const rows = new Map<number, number>()
    for (const top of tops) rows.set(Math.round(top), (rows.get(Math.round(top)) ?? 0) + 1)
    expect([...rows.values()], `rows at ${width} px`).toEqual(Array(8 / perRow).fill(perRow))
  }
  await page.setViewportSize({ width: 360, height: 740 })

  await stamp.click()
  await expect(page).toHaveURL(`/account/${first.id}/scan`)

  await page.goto('/account')
  const stamps = page.getByRole('main').getByRole('link', { name: /^Stamp a card: / })
  await expect(stamps).toHaveCount(2)
  await inFirstScreenful(stamps.first())
  await page.getByRole('link', { name: 'Stamp a card: Coffee card' }).click()
  await expect(page).toHaveURL(`/account/${first.id}/scan`)
})
