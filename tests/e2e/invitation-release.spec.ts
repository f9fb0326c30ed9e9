import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { measureWidth } from '#tests/support/page-width.ts'
import { expect, expectPageError, failedLoad, test, type Page } from '#tests/support/test.ts'

/**
 * Issue 30, item 12, with JavaScript and without, at 360 px: an invited address can always make its own account
 * (sign-up names the business and withdraws the invitation once ticked) or decline from the mail.
 */
test.use({ viewport: { width: 360, height: 740 } })

/** The owner invites `email` from the team page; answers the mailed decline link's path. */
async function invite(page: Page, email: string) {
  const owner = await createOwner('release')
  await createCard(owner.id, { businessName: 'Corner Coffee' })
  await signIn(page, owner)
  await page.goto('/account/team')
  const form = page.getByRole('region', { name: 'Invite a team member' })
  await form.getByLabel('Name').fill('Ivy')
  await form.getByLabel('E-mail').fill(email)
  await form.getByRole('button', { name: 'Send invitation' }).click()
  await expect(page.getByRole('listitem').filter({ hasText: email })).toBeVisible()
  const [mail] = await sql<{ text_body: string }>(
    `select text_body from mails where to_address = $1 order by created_at desc limit 1`,
    [email],
  )
  return /https?:\/\/\S+(\/decline-invitation\?token=[\w-]+)/.exec(mail!.text_body)![1]!
}

const fits = async (page: Page, what: string) =>
  expect(await measureWidth(page, 360), what).toMatchObject({ beyondRightEdge: [] })

test('sign-up of an invited address: it names the business, and ticked, makes the account', async ({
  page,
  browser,
}, testInfo) => {
  expectPageError(failedLoad(409, '/sign-up'))
  const email = `ivy-${Date.now().toString(36)}-${testInfo.project.name}@example.com`
  await invite(page, email)
  const guest = await browser.newContext({
    javaScriptEnabled: testInfo.project.name === 'js',
    viewport: { width: 360, height: 740 },
  })
  try {
    const signUp = await guest.newPage()
    await signUp.goto('/sign-up')
    const fill = async () => {
      await signUp.getByLabel('Email').fill(email)
      await signUp.getByLabel('Password', { exact: true }).fill('Stamp.card1')
      await signUp.getByLabel('Repeat password').fill('Stamp.card1')
    }
    await fill()
    await signUp.getByRole('button', { name: 'Continue' }).click()
    await expect(signUp.getByText('Corner Coffee invited this address to their team on Stampwise.')).toBeVisible()
    const withdraw = signUp.getByLabel('Create my own account instead (withdraws the invitation from Corner Coffee)')
    await expect(withdraw).toBeVisible()
    await fits(signUp, 'the invited sign-up at 360 px')
    await fill()
    await withdraw.check()
    await signUp.getByRole('button', { name: 'Continue' }).click()
    await expect(signUp).toHaveURL(/\/verify-email\?email=/)
  } finally {
    await guest.close()
  }
  await page.goto('/account/team')
  await expect(page.getByRole('listitem').filter({ hasText: email })).toHaveCount(0)
})

test('Not you? Decline: the page asks once, and the invitation is gone', async ({ page, browser }, testInfo) => {
  const email = `ivy-${Date.now().toString(36)}-${testInfo.project.name}@example.com`
  const declinePath = await invite(page, email)
  const guest = await browser.newContext({
    javaScriptEnabled: testInfo.project.name === 'js',
    viewport: { width: 360, height: 740 },
  })
  try {
    const decline = await guest.newPage()
    await decline.goto(declinePath)
    await expect(decline.getByRole('heading', { name: 'Decline the invitation?' })).toBeVisible()
    await expect(decline.getByText('Corner Coffee invited this e-mail address to their team')).toBeVisible()
    await fits(decline, 'the decline page at 360 px')
    await decline.getByRole('button', { name: 'Decline the invitation' }).click()
    await expect(decline.getByRole('heading', { name: 'Invitation declined' })).toBeVisible()
    await expect(decline).toHaveURL(/\/decline-invitation\?declined$/)
  } finally {
    await guest.close()
  }
  await page.goto('/account/team')
  await expect(page.getByRole('listitem').filter({ hasText: email })).toHaveCount(0)
})
