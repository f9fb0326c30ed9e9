import { createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { measureWidth } from '#tests/support/page-width.ts'
import { expect, expectPageError, failedLoad, test, type Page } from '#tests/support/test.ts'

/**
 * Issue 20, the owner's locations, with JavaScript and without, on a 360 px screen: from the account menu to
 * /account/locations, add a location with a position typed with a decimal comma and a staff member ticked, a
 * position given by half refused with its message, then edit it (another member, no position) and remove it.
 */
const main = (page: Page) => page.locator('main')
const toast = (page: Page, text: string) => page.getByRole('status').getByText(text)

async function createStaff(ownerId: string, name: string) {
  const email = `${name.toLowerCase()}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`
  const [row] = await sql<{ id: string }>(
    `insert into users (email, role, employer_id, staff_name, email_confirmed_at) values ($1, 'staff', $2, $3, now())
     returning id`,
    [email, ownerId, name],
  )
  return { id: row!.id, email, name }
}

test('locations: add one with its staff, refuse half a position, edit and remove it', async ({ page }) => {
  expectPageError(failedLoad(400, '/account/locations'))
  const owner = await createOwner('locations')
  const [anna, ben] = [await createStaff(owner.id, 'Anna'), await createStaff(owner.id, 'Ben')]
  await page.setViewportSize({ width: 360, height: 740 })
  await signIn(page, owner)

  await page.goto('/account/locations')
  await expect(main(page).locator('h1')).toHaveText('Locations')
  await expect(main(page).getByText('No locations yet')).toBeVisible()
  expect(await measureWidth(page, 360), 'the empty page at 360 px').toMatchObject({ beyondRightEdge: [] })

  // Half a position: the longitude's message, nothing stored.
  const add = main(page).getByRole('region', { name: 'Add a location' })
  await add.getByLabel('Name').fill('Baixa')
  await add.getByLabel('Address').fill('Rua Augusta 1, 1100-048 Lisboa')
  await add.getByLabel('Latitude').fill('38,7101')
  await add.getByRole('button', { name: 'Add location' }).click()
  await expect(add.getByText('Enter the longitude too, or leave both empty')).toBeVisible()
  expect(await sql(`select 1 from locations where owner_id = $1`, [owner.id])).toHaveLength(0)

  await add.getByLabel('Longitude').fill('-9,137')
  // Both: staffIds is the one name a form may repeat (docs/decisions/051-form-entries-and-discard-limit.md).
  await add.getByLabel(/^Anna/).check()
  await add.getByLabel(/^Ben/).check()
  await add.getByRole('button', { name: 'Add location' }).click()
  await expect(toast(page, '“Baixa” added.')).toBeVisible()
  const baixa = main(page).getByRole('region', { name: 'Baixa' })
  await expect(baixa.getByText('38.7101, -9.137: on Apple Wallet passes.')).toBeVisible()
  await expect(baixa.getByText('Staff: Anna, Ben')).toBeVisible()
  expect(await measureWidth(page, 360), 'a location at 360 px').toMatchObject({ beyondRightEdge: [] })
  const [stored] = await sql<{ id: string; latitude: number; longitude: number }>(
    `select id, latitude, longitude from locations where owner_id = $1`,
    [owner.id],
  )
  expect([stored!.latitude, stored!.longitude]).toEqual([38.7101, -9.137])
  expect(
    await sql(`select staff_id from staff_locations where location_id = $1 order by staff_id`, [stored!.id]),
  ).toEqual([anna.id, ben.id].sort().map((id) => ({ staff_id: id })))

  // Edit: Ben instead of Anna, no position.
  await baixa.getByText('Edit “Baixa”').click()
  const edit = baixa.locator('details form')
  await expect(edit.getByLabel('Latitude')).toHaveValue('38.7101')
  await edit.getByLabel('Name').fill('Baixa-Chiado')
  await edit.getByLabel('Latitude').fill('')
  await edit.getByLabel('Longitude').fill('')
  await edit.getByLabel(/^Anna/).uncheck()
  await edit.getByLabel(/^Ben/).check()
  expect(await measureWidth(page, 360), 'the edit form at 360 px').toMatchObject({ beyondRightEdge: [] })
  await edit.getByRole('button', { name: 'Save location' }).click()
  await expect(toast(page, '“Baixa-Chiado” saved.')).toBeVisible()
  const chiado = main(page).getByRole('region', { name: 'Baixa-Chiado' })
  await expect(chiado.getByText('No latitude and longitude: not on Apple Wallet passes.')).toBeVisible()
  await expect(chiado.getByText('Staff: Ben')).toBeVisible()
  expect(await sql(`select staff_id from staff_locations where location_id = $1`, [stored!.id])).toEqual([
    { staff_id: ben.id },
  ])

  // Remove: gone from the page, the row kept for the activity.
  await chiado.getByRole('button', { name: 'Remove “Baixa-Chiado”' }).click()
  await expect(toast(page, '“Baixa-Chiado” removed. Stamps made there keep its name.')).toBeVisible()
  await expect(main(page).getByRole('region', { name: 'Baixa-Chiado' })).toHaveCount(0)
  await expect(main(page).getByText('No locations yet')).toBeVisible()
  const [kept] = await sql<{ removed: boolean }>(
    `select removed_at is not null as removed from locations where id = $1`,
    [stored!.id],
  )
  expect(kept!.removed).toBe(true)
})
