import { e2eMailPorts, type ReceivedMail } from '#tests/support/smtp-peer.ts'
import {
  expect,
  expectPageError,
  failedLoad,
  test,
  type APIRequestContext,
  type Page,
  type TestInfo,
} from '#tests/support/test.ts'

/**
 * Owners' sign-up, sign-in and recovery, in the browser, with and without JavaScript (the two projects). Mail goes
 * over SMTP to the peer Playwright starts and is read back from it. The database is shared by every test of a run,
 * so each test uses its own addresses.
 */
const PASSWORD = 'Stamp.card1'
const MAIL_URL = `http://127.0.0.1:${e2eMailPorts().http}`

let counter = 0
function uniqueEmail(testInfo: TestInfo, label: string) {
  return `${label}-${testInfo.project.name}-${Date.now().toString(36)}-${++counter}-${testInfo.workerIndex}@example.com`
}

/** The newest mail to `to` whose subject contains `subject`, waiting for the SMTP peer to receive it. */
async function readMail(request: APIRequestContext, to: string, subject: string, count = 1): Promise<ReceivedMail> {
  let found: ReceivedMail[] = []
  await expect
    .poll(
      async () => {
        const response = await request.get(`${MAIL_URL}/messages?${new URLSearchParams({ to })}`)
        found = ((await response.json()) as ReceivedMail[]).filter((mail) => mail.subject.includes(subject))
        return found.length
      },
      { message: `${count} mail(s) "${subject}" to ${to}`, timeout: 15_000 },
    )
    .toBeGreaterThanOrEqual(count)
  return found.at(-1)!
}

function linkIn(mail: ReceivedMail, pathname: string): string {
  const match = new RegExp(`https?://\\S+${pathname}\\?token=[\\w-]+`).exec(mail.text)
  expect(match, `a ${pathname} link in "${mail.subject}"`).not.toBeNull()
  const url = new URL(match![0])
  return `${url.pathname}${url.search}`
}

const passwordInput = (page: Page, label = 'Password') => page.getByLabel(label, { exact: true })

async function logIn(page: Page, email: string, password = PASSWORD) {
  await page.getByLabel('Email').fill(email)
  await passwordInput(page).fill(password)
  await page.getByRole('button', { name: 'Login' }).click()
}

/**
 * Log Out sits in the account header's profile menu (a <details> element: opened first, with or without JavaScript).
 */
async function logOutFromAccount(page: Page) {
  await page.locator('.profile-menu summary').click()
  await page.getByRole('navigation', { name: 'Profile' }).getByRole('button', { name: 'Log Out' }).click()
}

/** An owner who signed up and confirmed the address, made through the pages' own forms. */
async function confirmedOwner(request: APIRequestContext, testInfo: TestInfo, label = 'owner') {
  const email = uniqueEmail(testInfo, label)
  const signUp = await request.post('/sign-up', { form: { email, password: PASSWORD, confirmPassword: PASSWORD } })
  expect(signUp.url()).toContain('/verify-email')
  const confirmed = await request.get(linkIn(await readMail(request, email, 'Confirm your e-mail'), '/email-confirmed'))
  expect(await confirmed.text()).toContain('successfully confirmed')
  return email
}

test('an owner signs up, confirms the address, signs in and out, and recovers the password', async ({
  page,
  request,
}, testInfo) => {
  expectPageError(failedLoad(401, '/login'))
  test.setTimeout(150_000) // about twenty page loads and three e-mails
  const email = uniqueEmail(testInfo, 'journey')
  await page.goto('/sign-up')
  await page.getByLabel('Email').fill(email)
  await passwordInput(page).fill(PASSWORD)
  await passwordInput(page, 'Repeat password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Continue' }).click()
  await expect(page).toHaveURL(`/verify-email?email=${encodeURIComponent(email)}`)
  await expect(page.getByText(email)).toBeVisible()

  await page.goto(linkIn(await readMail(request, email, 'Confirm your e-mail'), '/email-confirmed'))
  await expect(page.getByRole('heading', { name: 'E-mail confirmed' })).toBeVisible()
  await expect(
    page.getByRole('paragraph').filter({ hasText: "You're all set to start exploring Stampwise" }),
  ).toBeVisible()
  await expect(page.getByRole('status')).toContainText('Your email has been successfully confirmed!')
  await page.getByRole('link', { name: 'Get started' }).click()
  await expect(page).toHaveURL('/login?redirectTo=%2Faccount')
  await logIn(page, email)
  // With no card yet, the owner starts on the card designer, not on an empty account home.
  await expect(page).toHaveURL('/main')
  await expect(page.getByRole('heading', { name: 'Design your stamp card' })).toBeVisible()
  await page.goto('/account')
  await expect(page.locator('.profile-menu__email')).toHaveText(email)
  await expect(page.getByRole('heading', { name: 'Create your first stamp card' })).toBeVisible()

  await logOutFromAccount(page)
  await expect(page).toHaveURL('/login')
  await logIn(page, email)
  await expect(page).toHaveURL('/main')
  await page.getByRole('button', { name: 'Log Out' }).click()
  await expect(page).toHaveURL('/login')

  await page.getByRole('link', { name: 'Forgot password?' }).click()
  await expect(page).toHaveURL('/forgot-password')
  await page.getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Send reset link' }).click()
  await expect(page).toHaveURL('/reset-password-link')
  await expect(page.getByRole('heading', { name: 'Check your e-mail' })).toBeVisible()

  const newPassword = 'Fresh.start2'
  await page.goto(linkIn(await readMail(request, email, 'Reset your Stampwise password'), '/change-password'))
  await passwordInput(page, 'New password').fill(newPassword)
  await passwordInput(page, 'Confirm password').fill(newPassword)
  await page.getByRole('button', { name: 'Save new password' }).click()
  await expect(page).toHaveURL('/password-updated')
  await page.getByRole('link', { name: 'Login' }).click()
  await expect(page).toHaveURL('/login')
  await logIn(page, email, PASSWORD)
  await expect(page.getByText('Invalid email or password')).toBeVisible()
  await logIn(page, email, newPassword)
  await expect(page).toHaveURL('/main')
})

test.describe('validation messages', () => {
  test('login', async ({ page }) => {
    expectPageError(failedLoad(400, '/login'))
    await page.goto('/login')
    await page.getByLabel('Email').fill('not-an-email')
    await passwordInput(page).fill('12345')
    await page.getByRole('button', { name: 'Login' }).click()
    await expect(page.getByText('Invalid email format')).toBeVisible()
    await expect(page.getByText('Password must be 6 or more characters')).toBeVisible()
  })

  test('sign-up', async ({ page }) => {
    expectPageError(failedLoad(400, '/sign-up'))
    await page.goto('/sign-up')
    await page.getByLabel('Email').fill('owner@')
    await passwordInput(page).fill('abc')
    await passwordInput(page, 'Repeat password').fill('abd')
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByText('Invalid email format')).toBeVisible()
    for (const message of [
      '6 characters minimum',
      'At least one uppercase letter',
      'At least one number',
      'At least one special character !@#$%^&*().,',
    ]) {
      await expect(page.getByText(message, { exact: true })).toBeVisible()
    }
    await expect(page.getByText("Passwords don't match")).toBeVisible()
  })

  test('forgot password', async ({ page }) => {
    expectPageError(failedLoad(400, '/forgot-password'))
    await page.goto('/forgot-password')
    await page.getByLabel('Email').fill('nobody-at-example.com')
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await expect(page.getByText('Invalid email format')).toBeVisible()
    await expect(page).toHaveURL('/forgot-password')
  })

  test('change password', async ({ page, request }, testInfo) => {
    expectPageError(failedLoad(400, '/change-password'))
    const email = await confirmedOwner(request, testInfo, 'change')
    await request.post('/forgot-password', { form: { email } })
    await page.goto(linkIn(await readMail(request, email, 'Reset your Stampwise password'), '/change-password'))
    await passwordInput(page, 'New password').fill('Fresh.start2')
    await passwordInput(page, 'Confirm password').fill('Fresh.start3')
    await page.getByRole('button', { name: 'Save new password' }).click()
    await expect(page.getByText('Passwords do not match')).toBeVisible()
    await passwordInput(page, 'New password').fill('short')
    await passwordInput(page, 'Confirm password').fill('short')
    await page.getByRole('button', { name: 'Save new password' }).click()
    await expect(page.getByText('6 characters minimum')).toBeVisible()
  })

  test('errors clear when the field is edited', async ({ page }, testInfo) => {
    test.skip(testInfo.project.name === 'no-js', 'live validation needs JavaScript')
    await page.goto('/login')
    await page.getByLabel('Email').fill('not-an-email')
    await passwordInput(page).fill('123')
    await page.getByRole('button', { name: 'Login' }).click()
    await expect(page.getByText('Invalid email format')).toBeVisible()
    await expect(page.getByText('Password must be 6 or more characters')).toBeVisible()
    await page.getByLabel('Email').fill('owner@example.com')
    await expect(page.getByText('Invalid email format')).toHaveCount(0)
    await expect(page.getByText('Password must be 6 or more characters')).toBeVisible()
    await passwordInput(page).fill('123456')
    await expect(page.getByText('Password must be 6 or more characters')).toHaveCount(0)
  })
})

test('a wrong password gets "Invalid email or password"', async ({ page, request }, testInfo) => {
  expectPageError(failedLoad(401, '/login'))
  const email = await confirmedOwner(request, testInfo, 'wrong')
  await page.goto('/login')
  await logIn(page, email, 'Not.the.one1')
  await expect(page.getByRole('alert').getByText('Invalid email or password')).toBeVisible()
  await expect(page).toHaveURL('/login')
})

test('an unconfirmed owner is offered a new link, and resending shows the toast', async ({
  page,
  request,
}, testInfo) => {
  expectPageError(failedLoad(403, '/login'))
  const email = uniqueEmail(testInfo, 'unconfirmed')
  await request.post('/sign-up', { form: { email, password: PASSWORD, confirmPassword: PASSWORD } })
  await page.goto('/login')
  await logIn(page, email)
  await expect(page.getByText('Please confirm your email first')).toBeVisible()
  await page.getByRole('link', { name: 'Send me a new confirmation link' }).click()
  await expect(page).toHaveURL(`/verify-email?email=${encodeURIComponent(email)}`)
  await page.getByRole('button', { name: 'Resend' }).click()
  await expect(page.getByRole('status').getByText('Email has been sent successfully')).toBeVisible()
  await expect(page).toHaveURL(`/verify-email?email=${encodeURIComponent(email)}`)
  await readMail(request, email, 'Confirm your e-mail', 2)
})

test("after 'Resend', the first mail's link still confirms, and the second one lands as confirmed too", async ({
  page,
  request,
}, testInfo) => {
  const email = uniqueEmail(testInfo, 'resent')
  await request.post('/sign-up', { form: { email, password: PASSWORD, confirmPassword: PASSWORD } })
  await readMail(request, email, 'Confirm your e-mail')
  await page.goto(`/verify-email?email=${encodeURIComponent(email)}`)
  await page.getByRole('button', { name: 'Resend' }).click()
  await expect(page.getByRole('status').getByText('Email has been sent successfully')).toBeVisible()
  await readMail(request, email, 'Confirm your e-mail', 2)
  const response = await request.get(`${MAIL_URL}/messages?${new URLSearchParams({ to: email })}`)
  const links = ((await response.json()) as ReceivedMail[])
    .filter((mail) => mail.subject.includes('Confirm your e-mail'))
    .map((mail) => linkIn(mail, '/email-confirmed'))
  expect(links).toHaveLength(2)

  for (const link of links) {
    await page.goto(link)
    await expect(page.getByRole('heading', { name: 'E-mail confirmed' })).toBeVisible()
    await expect(page.getByText('already been used')).toHaveCount(0)
  }
  await page.getByRole('link', { name: 'Get started' }).click()
  await logIn(page, email)
  await expect(page).toHaveURL('/main')
})

test('the show-password box reveals the password', async ({ page }, testInfo) => {
  expectPageError(failedLoad(400, '/login'))
  await page.goto('/login')
  await expect(passwordInput(page)).toHaveAttribute('type', 'password')
  await page.getByLabel('Show password').check()
  if (testInfo.project.name === 'no-js') {
    // Without scripts the server echoes the box: the form comes back with the field as text.
    await page.getByLabel('Email').fill('x')
    await page.getByRole('button', { name: 'Login' }).click()
    await expect(page.getByLabel('Show password')).toBeChecked()
  }
  await expect(passwordInput(page)).toHaveAttribute('type', 'text')
})

test('a signed-in owner who opens a guest page is redirected', async ({ page, request }, testInfo) => {
  const email = await confirmedOwner(request, testInfo, 'signed-in')
  await page.goto('/login')
  await logIn(page, email)
  await expect(page).toHaveURL('/main')
  await page.goto('/login')
  await expect(page).toHaveURL('/main')
  await page.goto('/sign-up')
  await expect(page).toHaveURL('/account')
})

test('redirectTo brings the owner back to the page they asked for, but never to another site', async ({
  page,
  request,
}, testInfo) => {
  const email = await confirmedOwner(request, testInfo, 'redirect')
  await page.goto('/account/profile')
  await expect(page).toHaveURL('/login?redirectTo=%2Faccount%2Fprofile')
  await logIn(page, email)
  await expect(page).toHaveURL('/account/profile')
  await logOutFromAccount(page)

  await page.goto('/login?redirectTo=https%3A%2F%2Fexample.com%2Fsteal')
  await logIn(page, email)
  await expect(page).toHaveURL('/main')
})

test('the Back button leads to the previous page', async ({ page }) => {
  await page.goto('/login')
  await page.getByRole('link', { name: 'Forgot password?' }).click()
  await expect(page).toHaveURL('/forgot-password')
  await page.getByRole('link', { name: 'Back' }).click()
  await expect(page).toHaveURL('/login')
  await expect(page.getByRole('contentinfo').getByRole('link', { name: 'Terms of use' })).toHaveAttribute(
    'href',
    '/terms',
  )
  await expect(page.getByRole('contentinfo').getByRole('link', { name: 'Privacy policy' })).toHaveAttribute(
    'href',
    '/privacy-policy',
  )
})

test.describe('the browser’s time zone at sign-up', () => {
  test.use({ timezoneId: 'Pacific/Auckland' })
  test('is sent with JavaScript, and nothing (UTC) without', async ({ page, javaScriptEnabled }) => {
    await page.goto('/sign-up')
    await expect(page.locator('input[name="timeZone"]')).toHaveValue(javaScriptEnabled ? 'Pacific/Auckland' : '')
  })
})
