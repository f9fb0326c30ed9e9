import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { readMail } from '#tests/support/e2e-mail.ts'
import { measureWidth, PHONE_WIDTHS } from '#tests/support/page-width.ts'
import { expect, expectPageError, failedLoad, test, type Page } from '#tests/support/test.ts'

/*
 * Holders who can be found again (issue 34), the part that asks, with and without JavaScript (the two projects): the
 * owner chooses what to ask and when, a holder joins at one tap, is asked on the pass after the 2nd stamp, fixes a
 * mistyped e-mail and confirms it from the mail, which goes over SMTP to the peer Playwright starts. Phones first:
 * every page of it at 360 and 390 px.
 */
const ASK = 'Keep your card safe: get it back on a new phone'

async function expectFitsPhones(page: Page, what: string) {
  for (const width of PHONE_WIDTHS) {
    expect(await measureWidth(page, width), `${what} at ${width} px`).toMatchObject({ beyondRightEdge: [] })
  }
}

async function stampAtCounter(page: Page, cardId: string, code: string) {
  await page.goto(`/account/${cardId}/scan`)
  await page.getByLabel('Pass code').fill(code)
  await page.getByRole('button', { name: 'Give stamp' }).click()
  await expect(page.locator('.scan-pass h2')).toHaveText(`Pass ${code}`)
}

test('the owner asks after the 2nd stamp; the holder is asked then, fixes a typo and confirms the e-mail', async ({
  page,
  browser,
  request,
  javaScriptEnabled,
}, testInfo) => {
  // The mistyped e-mail's answer is a 400 with the form.
  expectPageError(failedLoad(400, /^\/p\/[0-9a-f-]{36}\/details$/))
  expectPageError(failedLoad(400, /^\/account\/[0-9a-f-]{36}\/holder-details$/))
  const owner = await createOwner('holder-details')
  const card = await createCard(owner.id, { businessName: 'Café Lumière', stampsRequired: 6 })
  await signIn(page, owner)
  await page.setViewportSize({ width: 360, height: 740 })

  // The owner: e-mail and birthday, on the card after the 2nd stamp, with a privacy note.
  await page.goto(`/account/${card.id}`)
  await page.getByRole('link', { name: 'Holder details' }).click()
  await expect(page.locator('main h1')).toHaveText('Holder details')
  await expectFitsPhones(page, 'the settings page')
  await page.getByRole('checkbox', { name: 'E-mail' }).check()
  await page.getByRole('checkbox', { name: 'Birthday' }).check()
  await page.getByRole('radio', { name: 'On the card, after a few stamps' }).check()
  await page.getByLabel('On the card', { exact: true }).selectOption('2')
  await page.getByRole('button', { name: 'Save holder details' }).click()
  await expect(page.getByText('Write a short privacy note: what you keep, and why')).toBeVisible()
  await page.getByLabel('Privacy note').fill('We keep your e-mail to find your card again, and nothing else.')
  await page.getByRole('button', { name: 'Save holder details' }).click()
  await expect(page.getByText('Holder details saved.')).toBeVisible()

  // The holder, on a phone of their own: one tap to join, nothing asked yet.
  const phone = await browser.newContext({ javaScriptEnabled, viewport: { width: 360, height: 740 } })
  const holder = await phone.newPage()
  await holder.goto(`/c/${card.slug}`)
  await expect(holder.getByText('(optional)')).toHaveCount(0)
  await holder.getByRole('button', { name: 'Get my card' }).click()
  await expect(holder).toHaveURL(/\/p\/[0-9a-f-]{36}$/)
  const passId = new URL(holder.url()).pathname.split('/')[2]!
  const [pass] = await sql<{ short_code: string }>('select short_code from passes where id = $1', [passId])
  await expect(holder.getByRole('heading', { name: ASK })).toHaveCount(0)

  await stampAtCounter(page, card.id, pass!.short_code)
  await holder.reload()
  await expect(holder.locator('.pass-page__progress')).toContainText('1')
  await expect(holder.getByRole('heading', { name: ASK })).toHaveCount(0)
  await stampAtCounter(page, card.id, pass!.short_code)
  await holder.reload()
  await expect(holder.getByRole('heading', { name: ASK })).toBeVisible()
  await expectFitsPhones(holder, 'the pass asking')

  await holder.getByRole('link', { name: 'Add my details' }).click()
  await expect(holder.locator('main h1')).toHaveText(ASK)
  await expect(holder.getByText('We keep your e-mail to find your card again, and nothing else.')).toBeVisible()
  await expect(holder.getByLabel('Your name')).toHaveCount(0)
  await expectFitsPhones(holder, 'the details page')
  const email = `holder-${testInfo.project.name}-${Date.now().toString(36)}@example.com`
  await holder.getByLabel('E-mail').fill(email.replace('@', ''))
  await holder.getByLabel('Day').selectOption('31')
  await holder.getByLabel('Month').selectOption('2')
  // The browser's own check of type=email would stop the form with JavaScript; the server's answer is what counts.
  await holder.locator('form.pass-page__keep').evaluate((form) => form.setAttribute('novalidate', ''))
  await holder.getByRole('button', { name: 'Save my details' }).click()
  await expect(holder.getByText('Invalid email format')).toBeVisible()
  await expect(holder.getByText('February has no 31st')).toBeVisible()
  await expectFitsPhones(holder, 'the details page with its errors')

  await holder.getByLabel('E-mail').fill(email)
  await holder.getByLabel('Day').selectOption('29')
  await holder.getByRole('button', { name: 'Save my details' }).click()
  await expect(holder.getByText('Saved. We sent you an e-mail: open its link to confirm your address.')).toBeVisible()
  await holder.getByRole('link', { name: 'Back to my card' }).click()
  await expect(holder.getByRole('heading', { name: ASK })).toHaveCount(0)

  const mail = await readMail(request, email, 'Confirm your e-mail for your stamp card')
  expect(mail.text).toContain("'Café Lumière'")
  const link = /https?:\/\/\S+(\/p\/confirm-email\?token=[\w-]+)/.exec(mail.text)![1]!
  await holder.goto(link)
  await expect(holder.locator('main h1')).toHaveText('Your e-mail is confirmed')
  await expectFitsPhones(holder, 'the confirmation page')
  await holder.getByRole('link', { name: 'Open my card' }).click()
  await expect(holder).toHaveURL(`/p/${passId}`)
  const [profile] = await sql<{ email: string; confirmed: boolean; birth_day: number; birth_month: number }>(
    `select email, email_confirmed_at is not null as confirmed, birth_day, birth_month from holder_profiles
     where pass_id = $1`,
    [passId],
  )
  expect(profile).toEqual({ email, confirmed: true, birth_day: 29, birth_month: 2 })
  await phone.close()
})

test('a card that asks at joining shows the optional fields under Get my card, and joins with or without them', async ({
  page,
  javaScriptEnabled,
}) => {
  expectPageError(failedLoad(400, /^\/c\/card-[0-9a-f]+$/))
  const owner = await createOwner('holder-details-join')
  const card = await createCard(owner.id, { businessName: 'Bäckerei Kranz' })
  await sql(`update cards set holder_details = $2::jsonb where id = $1`, [
    card.id,
    JSON.stringify({
      fields: ['name', 'phone'],
      when: 'joining',
      afterStamps: 2,
      privacyNote: 'Only to find you at the counter.',
      phoneCountry: 'FR',
    }),
  ])
  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto(`/c/${card.slug}`)
  await expect(page.getByLabel('Your name (optional)')).toBeVisible()
  await expect(page.getByText('Only to find you at the counter.')).toBeVisible()
  await expectFitsPhones(page, 'the join page with its fields')
  // A New York number without +1 at a French business: refused, and no card made.
  await page.getByLabel('Phone (optional)').fill('(212) 555-0123')
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page.getByText('Enter a phone number, like the one on your phone’s contact card')).toBeVisible()
  await expect(page.getByLabel('Phone (optional)')).toHaveValue('(212) 555-0123')
  expect(await sql('select 1 from passes where card_id = $1', [card.id])).toHaveLength(0)

  await page.getByLabel('Your name (optional)').fill('Amélie')
  await page.getByLabel('Phone (optional)').fill('06 12 34 56 78')
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page).toHaveURL(/\/p\/[0-9a-f-]{36}$/)
  const [profile] = await sql<{ name: string; phone: string }>(
    `select h.name, h.phone from holder_profiles h join passes p on p.id = h.pass_id where p.card_id = $1`,
    [card.id],
  )
  expect(profile).toEqual({ name: 'Amélie', phone: '+33612345678' })
  void javaScriptEnabled
})

test('the data page: what is kept, masked; the download; deleting the card with its details', async ({ page }) => {
  const owner = await createOwner('holder-data')
  const card = await createCard(owner.id, { businessName: 'Teehaus Nord' })
  await sql(`update cards set holder_details = $2::jsonb where id = $1`, [
    card.id,
    JSON.stringify({
      fields: ['email'],
      when: 'joining',
      afterStamps: 2,
      privacyNote: 'Only to find you.',
      phoneCountry: 'DE',
    }),
  ])
  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto(`/c/${card.slug}`)
  const email = `data-${Date.now().toString(36)}@example.com`
  await page.getByLabel('E-mail (optional)').fill(email)
  await page.getByRole('button', { name: 'Get my card' }).click()
  await expect(page).toHaveURL(/\/p\/[0-9a-f-]{36}$/)
  const passId = new URL(page.url()).pathname.split('/')[2]!

  await page.getByRole('link', { name: 'Your data' }).click()
  await expect(page.locator('main h1')).toHaveText('Your data')
  await expect(page.getByText('E-mail: d•••@example.com')).toBeVisible()
  await expect(page.getByText(email)).toHaveCount(0)
  await expectFitsPhones(page, 'the data page')

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download my data' }).click(),
  ])
  expect(download.suggestedFilename()).toMatch(/^stampwise-card-[A-Z2-9]{8}\.json$/)
  const exported = JSON.parse(
    await new Promise<string>((resolve, reject) => {
      void download.createReadStream().then((stream) => {
        let text = ''
        stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
        stream.on('end', () => resolve(text))
        stream.on('error', reject)
      })
    }),
  ) as { profile: { email: string }; card: { businessName: string } }
  expect(exported.profile.email).toBe(email)
  expect(exported.card.businessName).toBe('Teehaus Nord')

  await page.getByRole('link', { name: 'Delete my card and data' }).click()
  await expect(page.locator('main h1')).toHaveText('Remove this card?')
  await expect(page.getByText('The details you gave for it go too')).toBeVisible()
  await page.getByRole('button', { name: 'Remove my card' }).click()
  await expect(page).toHaveURL(`/c/${card.slug}`)
  expect(await sql('select 1 from holder_profiles where pass_id = $1', [passId])).toHaveLength(0)
  expect(await sql('select 1 from passes where id = $1', [passId])).toHaveLength(0)
})
