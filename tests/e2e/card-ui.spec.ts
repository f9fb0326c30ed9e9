import crypto from 'node:crypto'
import sharp from 'sharp'
import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { expect, test, type Page } from '#tests/support/test.ts'

/**
 * Issue 14, items 14 and 18, with JavaScript and without: the card's logo loads wherever the card is drawn, Redeem
 * asks first, and the poster's Print button exists only where it can work.
 */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

async function createPass(cardId: string, stamps: number) {
  const shortCode = Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code, stamps) values ($1, $2, $3) returning id`,
    [cardId, shortCode, stamps],
  )
  return { id: pass!.id, shortCode }
}

async function loadedLogoWidth(page: Page) {
  const logo = page.locator('img.card-preview__logo').first()
  await expect(logo).toBeVisible()
  await expect
    .poll(() => logo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth))
    .toBeGreaterThan(0)
  return logo.evaluate((image: HTMLImageElement) => image.naturalWidth)
}

test('the card’s logo loads on the join page, the account home and the poster', async ({ page, browser }, testInfo) => {
  const owner = await createOwner('logo')
  const card = await createCard(owner.id)
  const logo = await sharp({ create: { width: 48, height: 48, channels: 3, background: '#8e44ad' } })
    .webp()
    .toBuffer()
  await sql(`update cards set logo = $1, logo_content_type = 'image/webp' where id = $2`, [logo, card.id])

  const guest = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: testInfo.project.use.javaScriptEnabled,
  })
  const holder = await guest.newPage()
  await holder.goto(`/c/${card.slug}`)
  expect(await loadedLogoWidth(holder)).toBe(48)
  await guest.close()

  await signIn(page, owner)
  for (const pathname of ['/account', `/account/${card.id}/poster`]) {
    await page.goto(pathname)
    expect(await loadedLogoWidth(page), pathname).toBe(48)
  }
})

test('Redeem asks first: Cancel keeps the reward, Yes redeems it', async ({ page }) => {
  const owner = await createOwner('redeem')
  const card = await createCard(owner.id, { stampsRequired: 3 })
  const pass = await createPass(card.id, 3)
  await signIn(page, owner)
  await page.goto(`/account/${card.id}/scan?pass=${pass.id}`)
  await expect(page.locator('.scan-pass__earned')).toHaveText('Reward earned: A free coffee')

  await page.getByRole('link', { name: 'Redeem reward' }).click()
  const confirmation = page.getByRole('group', { name: 'Redeem the reward?' })
  await expect(confirmation).toContainText(`Give A free coffee to the holder of ${pass.shortCode} now`)
  // Nothing is redeemed by the first click.
  expect(
    (await sql<{ rewards_redeemed: number }>(`select rewards_redeemed from passes where id = $1`, [pass.id]))[0]!
      .rewards_redeemed,
  ).toBe(0)
  // The step's buttons: the action filled, the way out an outline (like Undo beside Redeem).
  await expect(confirmation.getByRole('button', { name: 'Yes, redeem' })).toHaveClass('button')
  await expect(confirmation.getByRole('link', { name: 'Cancel' })).toHaveClass(/button--ghost/)

  await confirmation.getByRole('link', { name: 'Cancel' }).click()
  await expect(page.getByRole('group', { name: 'Redeem the reward?' })).toHaveCount(0)
  await expect(page.locator('.scan-pass__progress')).toHaveText('3 of 3 stamps')

  await page.getByRole('link', { name: 'Redeem reward' }).click()
  await page.getByRole('button', { name: 'Yes, redeem' }).click()
  await expect(page.locator('.scan-pass__progress')).toHaveText('0 of 3 stamps')
  await expect(page.locator('.scan-pass__rewards')).toHaveText('Rewards redeemed: 1')
  await expect(page.getByRole('group', { name: 'Redeem the reward?' })).toHaveCount(0)
})

test('the poster has a Print button with JavaScript, and says how to print without it', async ({ page }, testInfo) => {
  const owner = await createOwner('poster')
  const card = await createCard(owner.id)
  await signIn(page, owner)
  await page.goto(`/account/${card.id}/poster`)
  await expect(page.locator('.poster-tools')).toContainText('Ctrl+P')
  const print = page.getByRole('button', { name: 'Print poster' })
  if (testInfo.project.name === 'no-js') {
    await expect(print).toHaveCount(0)
    return
  }
  await page.evaluate(() => {
    ;(window as unknown as { printed: number }).printed = 0
    window.print = () => void (window as unknown as { printed: number }).printed++
  })
  await print.click()
  expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1)
})
