import jsQR from 'jsqr'
import { PNG } from 'pngjs'
import { createOwner, signIn } from '#tests/support/e2e-database.ts'
import { expect, test, type Browser, type Page } from '#tests/support/test.ts'

/**
 * Issue #5's whole journey in one test, with JavaScript and without (the two projects): a new owner goes through
 * the onboarding and opens the printable poster; the poster's QR code decodes (jsqr) to the join address; a
 * holder in a second browser context opens that address and gets a pass; the owner's bell tells of the first
 * holder; the owner stamps the pass by its short code up to the reward and redeems it, and the holder's page shows
 * every change. Everything is done and checked through the pages: nothing is arranged in the database but the owner.
 * The details of each screen are tested in onboarding.spec.ts, holder-pass.spec.ts and stamping.spec.ts.
 */
const STAMPS_NEEDED = 4
const REWARD = 'A free coffee'
const CARD_TITLE = 'Coffee card'
const PASS_URL = /\/p\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/

/** The text of the QR code in a PNG, or null when none is found. */
function decodeQr(png: Buffer): string | null {
  const image = PNG.sync.read(png)
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null
}

/**
 * design → card_reward → card_ready → your_qr_code → easy_way → place_your_qr → win_win, the way a new owner
 * clicks through it. Returns the card's id, the join address the QR page announces, and the poster's address
 * as the onboarding links to it.
 */
async function goThroughOnboarding(page: Page) {
  await page.goto('/main')
  await expect(page.getByRole('heading', { name: 'Design your stamp card' })).toBeVisible()
  await page.getByLabel('Business name').fill('Corner Coffee')
  await page.getByLabel('Card title').fill(CARD_TITLE)
  await page.getByRole('radio', { name: 'coffee' }).check()
  // A short card keeps the stamping part short.
  await page.getByLabel('Stamps needed for the reward').fill(String(STAMPS_NEEDED))
  await page.getByRole('button', { name: 'Save and continue' }).click()
  await expect(page).toHaveURL(/\/card_reward\?cardId=[0-9a-f-]{36}$/)
  const cardId = new URL(page.url()).searchParams.get('cardId')!

  await page.getByLabel('Reward').fill(REWARD)
  await page.getByRole('button', { name: 'Save and publish the card' }).click()
  await expect(page).toHaveURL(`/card_ready?cardId=${cardId}`)
  await page.getByRole('button', { name: 'Get my QR code' }).click()

  await expect(page).toHaveURL(`/your_qr_code?cardId=${cardId}`)
  // The join address as the owner is told it: the QR image's name.
  const qrName = await page.getByRole('img', { name: /^QR code for / }).getAttribute('aria-label')
  const joinUrl = qrName!.replace(/^QR code for /, '')
  await page.getByRole('button', { name: 'How customers use it' }).click()

  await expect(page).toHaveURL(`/easy_way?cardId=${cardId}`)
  await page.getByRole('button', { name: 'Where to place the QR code' }).click()

  await expect(page).toHaveURL(`/place_your_qr?cardId=${cardId}`)
  const qrPageHref = await page.getByRole('link', { name: 'poster with your QR code' }).getAttribute('href')
  await page.getByRole('button', { name: 'Finish' }).click()

  await expect(page).toHaveURL(`/win_win?cardId=${cardId}`)
  await page.getByRole('button', { name: 'Go to my account' }).click()
  await expect(page).toHaveURL('/account')
  return { cardId, joinUrl, qrPageHref: qrPageHref! }
}

/** The holder's page as it is now: reloaded, since it does not update itself (with or without JavaScript). */
async function expectHolderSees(holder: Page, progress: string, reward: string) {
  await holder.reload()
  await expect(holder.getByText(progress, { exact: true })).toBeVisible()
  await expect(holder.getByText(reward, { exact: true })).toBeVisible()
}

/** The scan page's short-code form, as the owner types a holder's code; `count` fills 'Stamps to give'. */
async function giveStamps(owner: Page, shortCode: string, count?: number) {
  await owner.getByLabel('Pass code').fill(shortCode)
  if (count !== undefined) await owner.getByLabel('Stamps to give').fill(String(count))
  await owner.getByRole('button', { name: 'Give stamp' }).click()
}

async function newHolder(browser: Browser, baseURL: string, javaScriptEnabled: boolean) {
  // Its own context: the holder's phone shares no cookie with the owner's browser.
  const context = await browser.newContext({ baseURL, javaScriptEnabled })
  return { context, page: await context.newPage() }
}

test('a new owner builds a card and prints its poster; a holder joins by its QR code, is stamped to the reward and redeems it', async ({
  page: owner,
  browser,
  baseURL,
}, testInfo) => {
  test.setTimeout(90_000)
  const account = await createOwner('journey')
  await signIn(owner, account)

  // 1. The onboarding, then the poster the onboarding points to.
  const { cardId, joinUrl, qrPageHref } = await goThroughOnboarding(owner)
  expect(joinUrl).toMatch(new RegExp(`^${baseURL}/c/corner-coffee-[a-z0-9]{6}$`))
  await owner.goto(qrPageHref)
  const pngHref = await owner.getByRole('link', { name: 'Download PNG' }).getAttribute('href')
  await owner.getByRole('link', { name: 'Printable poster (A4)' }).click()
  await expect(owner).toHaveURL(`/account/${cardId}/poster`)
  const poster = owner.getByRole('article', { name: 'Poster' })
  await expect(poster.getByRole('heading', { name: `Collect ${STAMPS_NEEDED} stamps, get a reward` })).toBeVisible()
  await expect(poster.getByText(`Your reward: ${REWARD}`)).toBeVisible()

  // 2. The QR code the poster shows (an inline SVG, so read from its pixels) and the PNG download both decode to
  //    the join address.
  const posterQr = poster.getByRole('img', { name: `QR code that opens ${joinUrl}` })
  expect(decodeQr(await posterQr.screenshot()), 'the poster’s QR code').toBe(joinUrl)
  const png = await owner.request.get(pngHref!)
  expect(png.headers()['content-type']).toBe('image/png')
  expect(decodeQr(await png.body()), 'the downloadable PNG').toBe(joinUrl)
  // Nobody has joined yet, so the bell has nothing about holders.
  const bell = owner.locator('.account-header .notification-bell')
  await expect(bell).not.toContainText('holder joined')

  // 3. The holder opens the decoded address on their own phone and gets the card.
  const holder = await newHolder(browser, baseURL!, testInfo.project.use.javaScriptEnabled !== false)
  try {
    await holder.page.goto(joinUrl)
    await holder.page.getByRole('button', { name: 'Get my card' }).click()
    await expect(holder.page).toHaveURL(PASS_URL)
    await expect(holder.page.getByText(`0 of ${STAMPS_NEEDED} stamps`, { exact: true })).toBeVisible()
    await expect(holder.page.getByText(`Reward: ${REWARD}`, { exact: true })).toBeVisible()
    const shortCode = (await holder.page
      .getByRole('region', { name: 'Your code' })
      .locator('.pass-page__short-code')
      .textContent())!
    expect(shortCode).toMatch(/^[A-Z2-9]{8}$/)
    await expect(holder.page.getByRole('img', { name: `QR code of ${shortCode}` })).toBeVisible()

    // 4. The first holder's notice reaches the owner's bell, and leads to the card.
    await owner.goto(`/account/${cardId}/scan`)
    await expect(bell.locator('summary')).toContainText('unread')
    await bell.locator('summary').click()
    const notice = bell.getByRole('link', { name: `Your first holder joined ${CARD_TITLE}` })
    await expect(notice).toHaveAttribute('href', `/account/${cardId}`)
    await owner.goto('/account/notifications')
    await expect(
      owner
        .getByRole('main')
        .getByRole('listitem')
        .filter({ hasText: `Your first holder joined ${CARD_TITLE}` }),
    ).toContainText('New')

    // 5. Stamping by short code: one at a time, then the rest at once; the holder sees each change.
    await owner.goto(`/account/${cardId}/scan`)
    const progress = owner.locator('.scan-pass__progress')
    await giveStamps(owner, shortCode)
    await expect(progress).toHaveText(`1 of ${STAMPS_NEEDED} stamps`)
    await expectHolderSees(holder.page, `1 of ${STAMPS_NEEDED} stamps`, `Reward: ${REWARD}`)

    await giveStamps(owner, shortCode)
    await expect(progress).toHaveText(`2 of ${STAMPS_NEEDED} stamps`)
    await expectHolderSees(holder.page, `2 of ${STAMPS_NEEDED} stamps`, `Reward: ${REWARD}`)

    await giveStamps(owner, shortCode, STAMPS_NEEDED - 2)
    await expect(progress).toHaveText(`${STAMPS_NEEDED} of ${STAMPS_NEEDED} stamps`)
    await expect(owner.locator('.scan-pass__earned')).toHaveText(`Reward earned: ${REWARD}`)
    await expectHolderSees(holder.page, `${STAMPS_NEEDED} of ${STAMPS_NEEDED} stamps`, `Reward earned: ${REWARD}`)

    // 6. The owner redeems: a new round starts on both sides, and the owner's count of rewards goes up.
    await owner.getByRole('link', { name: 'Redeem reward' }).click()
    await owner.getByRole('button', { name: 'Yes, redeem' }).click()
    await expect(progress).toHaveText(`0 of ${STAMPS_NEEDED} stamps`)
    await expect(owner.locator('.scan-pass__rewards')).toHaveText('Rewards redeemed: 1')
    await expectHolderSees(holder.page, `0 of ${STAMPS_NEEDED} stamps`, `Reward: ${REWARD}`)
    await expect(holder.page.getByText(`Reward earned: ${REWARD}`)).toHaveCount(0)
  } finally {
    await holder.context.close()
  }
})
