import sharp from 'sharp'
import { createOwner, signIn } from '#tests/support/e2e-database.ts'
import { e2eMailPorts, type ReceivedMail } from '#tests/support/smtp-peer.ts'
import { expect, expectPageError, failedLoad, test, type APIRequestContext, type Page } from '#tests/support/test.ts'

/**
 * Profile settings in the browser, with and without JavaScript (the two projects): the logo in the header, the
 * upload's refusals, an e-mail change through its link, and deleting the profile. Mail is read from the SMTP peer.
 */
const MAIL_URL = `http://127.0.0.1:${e2eMailPorts().http}`

async function readMail(request: APIRequestContext, to: string, subject: string): Promise<ReceivedMail> {
  let found: ReceivedMail[] = []
  await expect
    .poll(
      async () => {
        const response = await request.get(`${MAIL_URL}/messages?${new URLSearchParams({ to })}`)
        found = ((await response.json()) as ReceivedMail[]).filter((mail) => mail.subject.includes(subject))
        return found.length
      },
      { message: `a mail "${subject}" to ${to}`, timeout: 15_000 },
    )
    .toBeGreaterThan(0)
  return found.at(-1)!
}

async function openProfile(page: Page, label: string) {
  const owner = await createOwner(label)
  await signIn(page, owner)
  await page.goto('/account/profile')
  await expect(page.getByRole('heading', { level: 1, name: 'Profile settings' })).toBeVisible()
  return owner
}

async function noisyPng(minBytes: number) {
  const side = Math.ceil(Math.sqrt(minBytes / 3)) + 10
  const noise = Buffer.alloc(side * side * 3)
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24
  return sharp(noise, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer()
}

async function upload(page: Page, file: { name: string; mimeType: string; buffer: Buffer }) {
  await page.getByLabel('Logo image').setInputFiles(file)
  await page.getByRole('button', { name: 'Upload logo' }).click()
}

test('an owner uploads a logo and sees it in the header; a renamed text file and a 3 MB image are refused', async ({
  page,
  javaScriptEnabled,
}) => {
  expectPageError(failedLoad(400, '/account/profile'))
  const owner = await openProfile(page, 'logo')
  const headerPhoto = page.locator('img.profile-photo')
  await expect(headerPhoto).toHaveAttribute('src', '/images/default-profile.svg')

  await upload(page, {
    name: 'logo.png',
    mimeType: 'image/png',
    buffer: Buffer.from('This is a text file, not a picture.\n'),
  })
  await expect(page.getByText('Upload a PNG, JPEG or WebP image')).toBeVisible()

  // Over the body limit (2 MB upload + 1 MB of fields) the server refuses before reading: 413 with the logo rule.
  // Without JavaScript that answer is its own page, so the profile is opened again to see nothing changed.
  expectPageError(failedLoad(413, '/account/profile'))
  const big = await noisyPng(3 * 1024 * 1024)
  await upload(page, { name: 'big.png', mimeType: 'image/png', buffer: big })
  await expect(page.getByText('The image must be 2 MB or smaller')).toBeVisible()
  if (!javaScriptEnabled) await page.goto('/account/profile')
  await expect(headerPhoto).toHaveAttribute('src', '/images/default-profile.svg')

  const logo = await sharp({ create: { width: 640, height: 400, channels: 3, background: { r: 185, g: 56, b: 27 } } })
    .jpeg()
    .toBuffer()
  await upload(page, { name: 'shop.jpg', mimeType: 'image/jpeg', buffer: logo })
  await expect(page.getByRole('status').getByText('Your logo has been updated')).toBeVisible()
  await expect(headerPhoto).toHaveAttribute('src', new RegExp(`^/images/users/${owner.id}/logo\\?v=\\d+$`))
  await expect.poll(() => headerPhoto.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(256)

  await page.getByRole('button', { name: 'Remove logo' }).click()
  await expect(page.getByRole('status').getByText('Your logo has been removed')).toBeVisible()
  await expect(headerPhoto).toHaveAttribute('src', '/images/default-profile.svg')
})

test('an owner changes the e-mail address through the link sent to the new one', async ({
  page,
  request,
}, testInfo) => {
  expectPageError(failedLoad(400, '/account/profile'))
  const owner = await openProfile(page, 'email')
  const newEmail = `moved-${testInfo.project.name}-${Date.now().toString(36)}-${testInfo.workerIndex}@example.com`
  await page.getByLabel('New email address').fill(newEmail)
  await page.getByLabel('Your password', { exact: true }).fill('Wrong.pass1')
  await page.getByRole('button', { name: 'Change email' }).click()
  await expect(page.getByText('The password is not correct')).toBeVisible()
  await page.getByLabel('New email address').fill(newEmail)
  await page.getByLabel('Your password', { exact: true }).fill(owner.password)
  await page.getByRole('button', { name: 'Change email' }).click()
  await expect(page.getByRole('status').getByText(`We sent a confirmation link to ${newEmail}`)).toBeVisible()
  await readMail(request, owner.email, 'Your Stampwise e-mail address is changing')

  const mail = await readMail(request, newEmail, 'Confirm your new e-mail')
  const link = new URL(/https?:\/\/\S+\/email-confirmed\?token=[\w-]+/.exec(mail.text)![0])
  await page.goto(`${link.pathname}${link.search}`)
  await expect(page.getByRole('heading', { name: 'E-mail confirmed' })).toBeVisible()
  await expect(page.getByRole('paragraph').filter({ hasText: 'Your new email address is confirmed' })).toBeVisible()
  await page.goto('/account/profile')
  await expect(page.getByText(`Your email address is ${newEmail}`)).toBeVisible()
})

test('an owner changes the password, with the policy’s messages', async ({ page }) => {
  expectPageError(failedLoad(400, '/account/profile'))
  const owner = await openProfile(page, 'password')
  await page.getByLabel('Current password', { exact: true }).fill(owner.password)
  await page.getByLabel('New password', { exact: true }).fill('Fresh.start2')
  await page.getByLabel('Confirm new password', { exact: true }).fill('Fresh.start3')
  await page.getByRole('button', { name: 'Change password' }).click()
  await expect(page.getByText('Passwords do not match')).toBeVisible()
  await page.getByLabel('Current password', { exact: true }).fill(owner.password)
  await page.getByLabel('New password', { exact: true }).fill('Fresh.start2')
  await page.getByLabel('Confirm new password', { exact: true }).fill('Fresh.start2')
  await page.getByRole('button', { name: 'Change password' }).click()
  await expect(page.getByRole('status').getByText('Your password has been changed')).toBeVisible()
})

test('an owner deletes the profile after typing the address', async ({ page }) => {
  expectPageError(failedLoad(400, '/account/profile'))
  const owner = await openProfile(page, 'delete')
  const confirm = page.getByLabel('Type your email address to confirm')
  await confirm.fill('someone-else@example.com')
  await page.getByRole('button', { name: 'Delete my profile' }).click()
  await expect(page.getByText('This does not match your email address')).toBeVisible()
  await confirm.fill(owner.email)
  await page.getByRole('button', { name: 'Delete my profile' }).click()
  await expect(page).toHaveURL('/')
  await expect(page.getByRole('status').getByText('Your profile has been deleted')).toBeVisible()
  await page.goto('/account/profile')
  await expect(page).toHaveURL('/login?redirectTo=%2Faccount%2Fprofile')
})

test('an owner chooses the business’s time zone and finds it chosen after a reload', async ({ page }) => {
  await openProfile(page, 'time-zone')
  const select = page.getByRole('combobox', { name: 'Time zone' })
  await expect(select).toHaveValue('UTC')
  await select.selectOption('Pacific/Auckland')
  await page.getByRole('button', { name: 'Save time zone' }).click()
  await expect(
    page.getByRole('status').getByText('Time zone saved: figures are being recounted in Pacific/Auckland.'),
  ).toBeVisible()
  await page.reload()
  await expect(page.getByRole('combobox', { name: 'Time zone' })).toHaveValue('Pacific/Auckland')
})
