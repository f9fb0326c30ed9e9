import sharp from 'sharp'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { logIn, sql, STRONG_PASSWORD, uniqueEmail } from '#tests/support/auth-api.ts'
import { bigPng, createOwner, image, userRow } from '#tests/support/profile-owner.ts'
import { startSmtpPeer } from '#tests/support/smtp-peer.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * /account/profile at HTTP level, as a browser without JavaScript uses it: form posts (multipart for the logo),
 * redirects with a toast, 400 with the form's errors. Mail goes over SMTP to a real peer on loopback.
 */
type TestServer = Awaited<ReturnType<typeof startTestServer>>
let server: TestServer
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>
beforeAll(async () => {
  smtp = await startSmtpPeer()
  process.env.SMTP_URL = smtp.url // read by the build when it first needs its configuration
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
  await smtp.close()
  delete process.env.SMTP_URL
})
beforeEach(async () => {
  await sql('delete from rate_limit_counters')
})

const PROFILE = '/account/profile'
const NEW_PASSWORD = 'Fresh.start2'

function uploadLogo(cookie: string, bytes: Uint8Array, { name = 'logo.png', type = 'image/png' } = {}) {
  const form = new FormData()
  form.set('intent', 'logo')
  form.set('logo', new Blob([new Uint8Array(bytes)], { type }), name)
  return server.post(PROFILE, form, cookie)
}

async function signedInOwner(options: Parameters<typeof createOwner>[0] = {}) {
  const owner = await createOwner(options)
  return { ...owner, cookie: await logIn(server, owner.email, owner.password) }
}

/** A redirect back to the profile with a toast cookie (post/redirect/get). */
function expectToastRedirect(response: Response, location = PROFILE) {
  expect(response.status).toBe(302)
  expect(response.headers.get('Location')).toBe(location)
  expect(response.headers.getSetCookie().some((line) => line.startsWith('__toast='))).toBe(true)
}

async function expectFormError(response: Response, message: string, status = 400) {
  expect(response.status).toBe(status)
  expect(await response.text()).toContain(message)
}

async function waitForMail(to: string, subject: string) {
  for (let i = 0; i < 100; i++) {
    const mail = smtp.messagesTo(to).find((message) => message.subject.includes(subject))
    if (mail) return mail
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no mail "${subject}" to ${to}`)
}

const linkPath = (text: string) => {
  const match = /https?:\/\/\S+(\/email-confirmed\?token=[\w-]+)/.exec(text)
  expect(match, 'a confirmation link').not.toBeNull()
  return match![1]!
}

describe('the page', () => {
  test('sends a guest to the login page, for the page and its forms', async () => {
    const page = await server.get(PROFILE)
    expect(page.status).toBe(302)
    expect(page.headers.get('Location')).toBe('/login?redirectTo=%2Faccount%2Fprofile')
    const post = await server.fetch(PROFILE, { method: 'POST', body: new URLSearchParams({ intent: 'remove-logo' }) })
    expect(post.status).toBe(302)
    expect(post.headers.get('Location')).toMatch(/^\/login\?/)
  })

  test('shows the heading and the four forms, and never the password hash', async () => {
    const owner = await signedInOwner()
    const response = await server.get(PROFILE, owner.cookie)
    expect(response.status).toBe(200)
    const html = await response.text()
    expect(html).toContain('<h1>Profile settings</h1>')
    expect(html).toContain(owner.email)
    for (const intent of ['logo', 'email', 'password', 'delete'])
      expect(html).toContain(`name="intent" value="${intent}"`)
    expect(html).toMatch(/enctype="multipart\/form-data"/i)
    const [{ password_hash: hash }] = (await sql<{ password_hash: string }>(
      'select password_hash from users where id = :id',
      { id: owner.id },
    )) as [{ password_hash: string }]
    expect(html).not.toContain(hash)
    expect(html).not.toContain('passwordHash')
  })

  test('an unknown intent or a body that is not a form answers 400, not 500', async () => {
    const owner = await signedInOwner()
    expect((await server.post(PROFILE, { intent: 'nonsense' }, owner.cookie)).status).toBe(400)
    const json = await server.fetch(PROFILE, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: owner.cookie },
      body: '{"intent":"delete"}',
    })
    expect(json.status).toBe(400)
  })
})

describe('logo', () => {
  test('an upload is stored as a 256 px WebP and served to its owner with long private caching', async () => {
    const owner = await signedInOwner()
    expectToastRedirect(
      await uploadLogo(owner.cookie, await image('jpeg', 900, 600), { name: 'photo.jpg', type: 'image/jpeg' }),
    )
    expect(await userRow(owner.id)).toMatchObject({ has_logo: true, logo_content_type: 'image/webp' })

    const html = await (await server.get(PROFILE, owner.cookie)).text()
    const src = new RegExp(`/images/users/${owner.id}/logo\\?v=\\d+`).exec(html)?.[0]
    expect(src, 'the header shows the new logo').toBeDefined()
    expect(html).toMatch(new RegExp(`class="profile-photo" src="${src!.replace('?', '\\?')}"`))

    const served = await server.get(src!, owner.cookie)
    expect(served.status).toBe(200)
    expect(served.headers.get('Content-Type')).toBe('image/webp')
    expect(served.headers.get('Cache-Control')).toBe('private, max-age=31536000, immutable')
    expect(served.headers.get('X-Content-Type-Options')).toBe('nosniff')
    const metadata = await sharp(Buffer.from(await served.arrayBuffer())).metadata()
    expect(metadata).toMatchObject({ format: 'webp', width: 256, height: 256 })

    // An out-of-date version's address still answers, but is not kept.
    const stale = await server.get(`/images/users/${owner.id}/logo?v=1`, owner.cookie)
    expect(stale.status).toBe(200)
    expect(stale.headers.get('Cache-Control')).toBe('private, no-cache')
  })

  test('the logo is the owner’s and admins’ only: others, guests and owners without a logo get 404', async () => {
    const owner = await signedInOwner()
    expectToastRedirect(await uploadLogo(owner.cookie, await image('png')))
    const other = await signedInOwner()
    const admin = await signedInOwner({ role: 'admin' })
    const path = `/images/users/${owner.id}/logo`
    expect((await server.get(path, admin.cookie)).status).toBe(200)
    expect((await server.get(path, other.cookie)).status).toBe(404)
    expect((await server.get(path)).status).toBe(404)
    expect((await server.get(`/images/users/${other.id}/logo`, other.cookie)).status).toBe(404)
    expect((await server.get('/images/users/not-a-uuid/logo', admin.cookie)).status).toBe(404)
  })

  test('a text file renamed to .png is refused by its content', async () => {
    const owner = await signedInOwner()
    await expectFormError(
      await uploadLogo(owner.cookie, Buffer.from('just text\n'.repeat(50))),
      'Upload a PNG, JPEG or WebP image',
    )
    expect(await userRow(owner.id)).toMatchObject({ has_logo: false })
  })

  test('an image over 2 MB is refused, and so is a 50 MB body, without reading it into memory', async () => {
    const owner = await signedInOwner()
    const big = await bigPng(3 * 1024 * 1024)
    expect(big.byteLength).toBeGreaterThan(3 * 1024 * 1024)
    // Past 2 MB + 1 MB of other fields the request guards refuse the body (413) before the page reads it.
    await expectFormError(await uploadLogo(owner.cookie, big), 'The image must be 2 MB or smaller', 413)

    // 50 MB declared up front, then 50 MB streamed with no length (chunked): both refused with the logo rule.
    await expectFormError(
      await uploadLogo(owner.cookie, Buffer.alloc(50 * 1024 * 1024)),
      'The image must be 2 MB or smaller',
      413,
    )
    const boundary = 'stampwise-test-boundary'
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="intent"\r\n\r\nlogo\r\n--${boundary}\r\nContent-Disposition: form-data; name="logo"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`
    let sent = 0
    const chunk = new Uint8Array(1024 * 1024)
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode(head))
        if (sent >= 50) return controller.close()
        sent++
        controller.enqueue(chunk)
      },
    })
    const streamed = await server.fetch(PROFILE, {
      method: 'POST',
      headers: { Cookie: owner.cookie, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit)
    await expectFormError(streamed, 'The image must be 2 MB or smaller', 413)
    expect(await userRow(owner.id)).toMatchObject({ has_logo: false })
  })

  test('a truncated image, a decompression bomb, a missing file and a broken upload are refused', async () => {
    const owner = await signedInOwner()
    const noise = Buffer.from(Array.from({ length: 200 * 200 * 3 }, (_, i) => (i * 7919) % 256))
    const jpeg = await sharp(noise, { raw: { width: 200, height: 200, channels: 3 } })
      .jpeg()
      .toBuffer()
    await expectFormError(
      await uploadLogo(owner.cookie, jpeg.subarray(0, jpeg.byteLength / 2)),
      'The image could not be read',
    )
    const bomb = await sharp(Buffer.alloc(8000 * 8000), { raw: { width: 8000, height: 8000, channels: 1 } })
      .png()
      .toBuffer()
    await expectFormError(await uploadLogo(owner.cookie, bomb), 'The image is too large in pixels')
    await expectFormError(await uploadLogo(owner.cookie, new Uint8Array(), { name: '' }), 'Choose an image to upload')
    const broken = await server.fetch(PROFILE, {
      method: 'POST',
      headers: { Cookie: owner.cookie, 'Content-Type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="logo"; filename="a.png"\r\n\r\nno end',
    })
    expect(broken.status).toBe(400)
    expect(await userRow(owner.id)).toMatchObject({ has_logo: false })
  })

  test('"Remove logo" brings back the default picture', async () => {
    const owner = await signedInOwner()
    expectToastRedirect(await uploadLogo(owner.cookie, await image('webp')))
    expectToastRedirect(await server.post(PROFILE, { intent: 'remove-logo' }, owner.cookie))
    expect(await userRow(owner.id)).toMatchObject({ has_logo: false, logo_content_type: null })
    expect(await (await server.get(PROFILE, owner.cookie)).text()).toContain(
      'class="profile-photo" src="/images/default-profile.svg"',
    )
    expect((await server.get(`/images/users/${owner.id}/logo`, owner.cookie)).status).toBe(404)
  })
})

describe('e-mail change', () => {
  const changeEmail = (cookie: string, fields: Record<string, string>) =>
    server.post(PROFILE, { intent: 'email', ...fields }, cookie)

  test('mails a link to the new address and a notice to the old one; the address changes when the link is opened', async () => {
    const owner = await signedInOwner()
    const newEmail = uniqueEmail('moved')
    expectToastRedirect(await changeEmail(owner.cookie, { email: newEmail.toUpperCase(), password: STRONG_PASSWORD }))
    expect(await userRow(owner.id)).toMatchObject({ email: owner.email })

    const notice = await waitForMail(owner.email, 'Your Stampwise e-mail address is changing')
    expect(notice.text).toContain(newEmail)
    const confirmation = await waitForMail(newEmail, 'Confirm your new e-mail')
    const link = linkPath(confirmation.text)

    // Opened by the signed-in owner: the confirm page runs before any guest-only redirect.
    const opened = await server.get(link, owner.cookie)
    expect(opened.status).toBe(200)
    expect(await opened.text()).toContain('Your new email address is confirmed')
    expect(await userRow(owner.id)).toMatchObject({ email: newEmail, email_confirmed: true })
    expect((await server.get(link)).status).toBe(200) // idempotent

    expect(
      (
        await server.fetch('/api/auth/login', {
          method: 'POST',
          body: JSON.stringify({ email: owner.email, password: STRONG_PASSWORD }),
        })
      ).status,
    ).toBe(401)
    await logIn(server, newEmail)
  })

  test('refuses bad input with field messages', async () => {
    const owner = await signedInOwner()
    const taken = await createOwner()
    await expectFormError(
      await changeEmail(owner.cookie, { email: 'not-an-email', password: STRONG_PASSWORD }),
      'Invalid email format',
    )
    await expectFormError(await changeEmail(owner.cookie, { email: uniqueEmail() }), 'Enter your current password')
    await expectFormError(
      await changeEmail(owner.cookie, { email: uniqueEmail(), password: 'Wrong.pass1' }),
      'The password is not correct',
    )
    await expectFormError(
      await changeEmail(owner.cookie, { email: owner.email, password: STRONG_PASSWORD }),
      'This is already your email address',
    )
    await expectFormError(
      await changeEmail(owner.cookie, { email: taken.email, password: STRONG_PASSWORD }),
      'An account with this email already exists',
    )
    const [{ count }] = (await sql<{ count: number }>(
      `select count(*)::int as count from one_time_tokens where user_id = :id and kind = 'email_change'`,
      {
        id: owner.id,
      },
    )) as [{ count: number }]
    expect(count).toBe(0)
  })

  test('repeated wrong passwords are limited', async () => {
    const owner = await signedInOwner()
    for (let i = 0; i < 5; i++) {
      await expectFormError(
        await changeEmail(owner.cookie, { email: uniqueEmail(), password: 'Wrong.pass1' }),
        'The password is not correct',
      )
    }
    const limited = await changeEmail(owner.cookie, { email: uniqueEmail(), password: STRONG_PASSWORD })
    expect(limited.headers.get('Retry-After')).toMatch(/^\d+$/)
    await expectFormError(limited, 'Too many attempts', 429)
  })

  test('an account without a password (Google or Apple) changes its address without one', async () => {
    // Signed in first, then the password goes: the account is then like one made with Google or Apple.
    const owner = await signedInOwner()
    await sql('update users set password_hash = null where id = :id', { id: owner.id })
    const html = await (await server.get(PROFILE, owner.cookie)).text()
    expect(html).not.toContain('Your password')
    expect(html).toContain('Set a password')
    const newEmail = uniqueEmail('social-moved')
    expectToastRedirect(await changeEmail(owner.cookie, { email: newEmail }))
    expect((await server.get(linkPath((await waitForMail(newEmail, 'Confirm your new e-mail')).text))).status).toBe(200)
    expect(await userRow(owner.id)).toMatchObject({ email: newEmail })
    // …and can set a first password without a current one.
    expectToastRedirect(
      await server.post(
        PROFILE,
        { intent: 'password', password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD },
        owner.cookie,
      ),
    )
    await logIn(server, newEmail, NEW_PASSWORD)
  })

  test('a link whose address was taken in the meantime, or replaced by a newer request, does not change it', async () => {
    const owner = await signedInOwner()
    const wanted = uniqueEmail('wanted')
    expectToastRedirect(await changeEmail(owner.cookie, { email: wanted, password: STRONG_PASSWORD }))
    const firstLink = linkPath((await waitForMail(wanted, 'Confirm your new e-mail')).text)
    await sql(`insert into users (email, password_hash) values (:email, null)`, { email: wanted })
    const taken = await server.get(firstLink, owner.cookie)
    expect(taken.status).toBe(400)
    expect(await taken.text()).toContain('An account with this email already exists')
    expect(await userRow(owner.id)).toMatchObject({ email: owner.email })

    const second = uniqueEmail('second')
    const third = uniqueEmail('third')
    expectToastRedirect(await changeEmail(owner.cookie, { email: second, password: STRONG_PASSWORD }))
    const secondLink = linkPath((await waitForMail(second, 'Confirm your new e-mail')).text)
    expectToastRedirect(await changeEmail(owner.cookie, { email: third, password: STRONG_PASSWORD }))
    expect((await server.get(secondLink)).status).toBe(400)
    expect(await userRow(owner.id)).toMatchObject({ email: owner.email })
  })
})

describe('password change', () => {
  const changePassword = (cookie: string, fields: Record<string, string>) =>
    server.post(PROFILE, { intent: 'password', ...fields }, cookie)

  test('refuses a weak or mismatched password and a wrong current one', async () => {
    const owner = await signedInOwner()
    const valid = { currentPassword: STRONG_PASSWORD, password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }
    await expectFormError(
      await changePassword(owner.cookie, { ...valid, confirmPassword: 'Fresh.start3' }),
      'Passwords do not match',
    )
    const weak = await changePassword(owner.cookie, { ...valid, password: 'short', confirmPassword: 'short' })
    const html = await weak.text()
    expect(weak.status).toBe(400)
    for (const message of ['6 characters minimum', 'At least one uppercase letter', 'At least one number'])
      expect(html).toContain(message)
    expect(html).not.toContain(STRONG_PASSWORD) // passwords are never sent back
    await expectFormError(
      await changePassword(owner.cookie, { ...valid, currentPassword: 'Wrong.pass1' }),
      'The password is not correct',
    )
    await expectFormError(
      await changePassword(owner.cookie, { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }),
      'Enter your current password',
    )
  })

  test('a new password ends the other sessions, voids reset links and keeps this session', async () => {
    const owner = await signedInOwner()
    const otherBrowser = await logIn(server, owner.email)
    const forgot = await server.fetch('/api/auth/forgot-password', {
      method: 'POST',
      body: JSON.stringify({ email: owner.email }),
    })
    expect(forgot.status).toBe(200)
    expectToastRedirect(
      await changePassword(owner.cookie, {
        currentPassword: STRONG_PASSWORD,
        password: NEW_PASSWORD,
        confirmPassword: NEW_PASSWORD,
      }),
    )
    expect((await server.get(PROFILE, owner.cookie)).status).toBe(200)
    expect((await server.get(PROFILE, otherBrowser)).status).toBe(302)
    await logIn(server, owner.email, NEW_PASSWORD)
    const links = await sql<{ used: boolean }>(
      `select used_at is not null as used from one_time_tokens where user_id = :id and kind = 'password_reset'`,
      { id: owner.id },
    )
    expect(links).toEqual([{ used: true }])
  })
})

describe('delete profile', () => {
  test('a wrong confirmation is refused', async () => {
    const owner = await signedInOwner()
    await expectFormError(
      await server.post(PROFILE, { intent: 'delete', confirm: 'someone@example.com' }, owner.cookie),
      'This does not match your email address',
    )
    await expectFormError(
      await server.post(PROFILE, { intent: 'delete' }, owner.cookie),
      'Type your email address to confirm',
    )
    expect(await userRow(owner.id)).toBeDefined()
  })

  test('deletes the user with cards and sessions, signs out and says so on the home page', async () => {
    const owner = await signedInOwner()
    await sql(`insert into cards (user_id, slug, title) values (:id, :slug, 'Coffee')`, {
      id: owner.id,
      slug: `card-${owner.id.slice(0, 8)}`,
    })
    const response = await server.post(
      PROFILE,
      { intent: 'delete', confirm: ` ${owner.email.toUpperCase()} ` },
      owner.cookie,
    )
    expectToastRedirect(response, '/')
    expect(response.headers.getSetCookie().find((line) => line.startsWith('__session='))).toMatch(
      /Max-Age=0|Expires=Thu, 01 Jan 1970/,
    )
    expect(await userRow(owner.id)).toBeUndefined()
    for (const table of ['cards', 'sessions', 'subscriptions']) {
      const [{ count }] = (await sql<{ count: number }>(
        `select count(*)::int as count from ${table} where user_id = :id`,
        { id: owner.id },
      )) as [{ count: number }]
      expect(count, table).toBe(0)
    }
    const toast = response.headers
      .getSetCookie()
      .find((line) => line.startsWith('__toast='))!
      .split(';')[0]!
    const home = await server.get('/', toast)
    expect(await home.text()).toContain('Your profile has been deleted')
    expect((await server.get(PROFILE, owner.cookie)).status).toBe(302)
  })
})
