import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { signedInOwner, createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { startSmtpPeer } from '#tests/support/smtp-peer.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/*
 * Holders who can be found again (issue 34), the part that asks: what a card asks at /account/{cardId}/holder-details,
 * the optional fields under 'Get my card', the question on the pass after the Nth stamp, each field's validation,
 * and the e-mail confirmed by a link that goes over SMTP to a real peer.
 */
let server: Awaited<ReturnType<typeof startTestServer>>
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>
beforeAll(async () => {
  smtp = await startSmtpPeer()
  process.env.SMTP_URL = smtp.url
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

let counter = 0
async function ownerWithCard() {
  const owner = await signedInOwner(server)
  const slug = `details-${Date.now().toString(36)}-${++counter}`
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
     values (:userId, :slug, 'active', 'Coffee card', 'Café Kranz', 8, 'A free coffee') returning id`,
    { userId: owner.id, slug },
  )
  // A business in Berlin: its phone numbers without a prefix are German.
  await sql(`update users set time_zone = 'Europe/Berlin' where id = :id`, { id: owner.id })
  return { owner, cardId: card!.id, slug }
}

const settingsForm = (fields: string[], extra: Record<string, string> = {}) => {
  const form = new URLSearchParams({
    when: 'after_stamps',
    afterStamps: '2',
    privacyNote: 'We keep these to find your card again. Ask us to erase them at any time.',
    phoneCountry: 'DE',
    ...extra,
  })
  for (const field of fields) form.append('fields', field)
  return form
}

async function saveSettings(cookie: string, cardId: string, form: URLSearchParams) {
  return server.fetch(`/account/${cardId}/holder-details`, { method: 'POST', headers: { Cookie: cookie }, body: form })
}

const passIdOf = (response: Response) => /^\/p\/([0-9a-f-]{36})$/.exec(response.headers.get('Location') ?? '')?.[1]

async function stamp(cookie: string, cardId: string, passId: string) {
  const [pass] = await sql<{ short_code: string }>('select short_code from passes where id = :passId', { passId })
  const response = await server.fetch(`/account/${cardId}/scan`, {
    method: 'POST',
    headers: { Cookie: cookie },
    body: new URLSearchParams({ intent: 'stamp', code: pass!.short_code }),
  })
  expect(response.status).toBe(302)
}

async function confirmationLink(to: string) {
  for (let i = 0; i < 200; i++) {
    const mail = smtp.messagesTo(to).find((message) => message.subject === 'Confirm your e-mail for your stamp card')
    if (mail) {
      expect(mail.text).toContain("'Café Kranz'")
      return /https?:\/\/\S+(\/p\/confirm-email\?token=[\w-]+)/.exec(mail.text)![1]!
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no confirmation mail to ${to}`)
}

describe('the owner’s settings', () => {
  test('an existing card asks nothing; the page offers the owner’s country and saves what to ask', async () => {
    const { owner, cardId } = await ownerWithCard()
    const [before] = await sql<{ holder_details: unknown }>('select holder_details from cards where id = :cardId', {
      cardId,
    })
    expect(before!.holder_details).toBeNull()
    const page = await pageText(
      await server.fetch(`/account/${cardId}/holder-details`, { headers: { Cookie: owner.cookie } }),
    )
    expect(page).toContain('What to ask')
    expect(page).toMatch(/<option value="DE" selected="">Germany<\/option>/)

    const saved = await saveSettings(owner.cookie, cardId, settingsForm(['phone', 'email']))
    expect(saved.status).toBe(302)
    const [after] = await sql<{ holder_details: Record<string, unknown> }>(
      'select holder_details from cards where id = :cardId',
      { cardId },
    )
    // Kept in the form's order of fields, whatever order the browser sent.
    expect(after!.holder_details).toMatchObject({ fields: ['email', 'phone'], when: 'after_stamps', afterStamps: 2 })
  })

  test('asking for anything needs a privacy note; bad values are refused with their message', async () => {
    const { owner, cardId } = await ownerWithCard()
    const cases: [URLSearchParams, string][] = [
      [settingsForm(['email'], { privacyNote: ' ' }), 'Write a short privacy note: what you keep, and why'],
      [settingsForm(['email'], { afterStamps: '0' }), 'Choose a stamp from 1 to 20'],
      [settingsForm(['email'], { when: 'never' }), 'Choose when to ask'],
      [settingsForm(['email'], { phoneCountry: 'XX' }), 'Choose the country of your phone numbers'],
      [settingsForm(['email'], { privacyNote: 'x'.repeat(501) }), 'Keep the privacy note to 500 characters'],
    ]
    for (const [form, message] of cases) {
      const response = await saveSettings(owner.cookie, cardId, form)
      expect(response.status, message).toBe(400)
      expect(await pageText(response)).toContain(message)
    }
    const [row] = await sql<{ holder_details: unknown }>('select holder_details from cards where id = :cardId', {
      cardId,
    })
    expect(row!.holder_details).toBeNull()
  })

  test('another owner’s card is not found, and its settings stay as they were', async () => {
    const { cardId } = await ownerWithCard()
    const other = await signedInOwner(server)
    const page = await server.fetch(`/account/${cardId}/holder-details`, { headers: { Cookie: other.cookie } })
    expect(page.status).toBe(404)
    const post = await saveSettings(other.cookie, cardId, settingsForm(['email']))
    expect(post.status).toBe(404)
    const [row] = await sql<{ holder_details: unknown }>('select holder_details from cards where id = :cardId', {
      cardId,
    })
    expect(row!.holder_details).toBeNull()
  })
})

describe('the holder’s side', () => {
  test('at joining: optional fields under the button; a card without them joins at one tap', async () => {
    const { owner, cardId, slug } = await ownerWithCard()
    expect(await pageText(await server.fetch(`/c/${slug}`))).not.toContain('(optional)')
    await saveSettings(owner.cookie, cardId, settingsForm(['name', 'phone', 'birthday'], { when: 'joining' }))
    const page = await pageText(await server.fetch(`/c/${slug}`))
    expect(page).toContain('Get my card')
    expect(page).toContain('We keep these to find your card again.')
    expect(page.indexOf('Get my card')).toBeLessThan(page.indexOf('Your name'))

    // The button alone still gets the card, with nothing kept.
    const bare = await server.post(`/c/${slug}`, {})
    expect(bare.status).toBe(303)
    expect(await sql('select * from holder_profiles where pass_id = :id', { id: passIdOf(bare) })).toHaveLength(0)

    // Empty fields are no details either.
    const empty = await server.post(`/c/${slug}`, { name: '', phone: ' ', birthDay: '', birthMonth: '' })
    expect(empty.status).toBe(303)
    expect(await sql('select * from holder_profiles where pass_id = :id', { id: passIdOf(empty) })).toHaveLength(0)

    const joined = await server.post(`/c/${slug}`, {
      name: 'Lena Vogel',
      phone: '030 901820',
      birthDay: '29',
      birthMonth: '2',
    })
    expect(joined.status).toBe(303)
    const [profile] = await sql<Record<string, unknown>>(
      'select card_id, name, phone, birth_day, birth_month, email from holder_profiles where pass_id = :id',
      { id: passIdOf(joined) },
    )
    expect(profile).toEqual({
      card_id: cardId,
      name: 'Lena Vogel',
      phone: '+4930901820',
      birth_day: 29,
      birth_month: 2,
      email: null,
    })
    void owner
  })

  test('each field’s validation: a bad e-mail, a phone of another country, 31 February — and no card made', async () => {
    const { owner, cardId, slug } = await ownerWithCard()
    // A café in Lyon: France's numbering plan tells a French number from another country's (Germany's takes almost
    // any length, so a New York number typed there reads as a German one).
    await saveSettings(
      owner.cookie,
      cardId,
      settingsForm(['name', 'email', 'phone', 'birthday'], { when: 'joining', phoneCountry: 'FR' }),
    )
    const cases: [Record<string, string>, string][] = [
      [{ email: 'lena@' }, 'Invalid email format'],
      // A New York number, typed without +1, at a business in France.
      [{ phone: '(212) 555-0123', email: 'lena@example.com' }, 'Enter a phone number'],
      [{ phone: 'call me' }, 'Enter a phone number'],
      [{ birthDay: '31', birthMonth: '2' }, 'February has no 31st'],
      [{ birthDay: '31', birthMonth: '4' }, 'April has no 31st'],
      [{ birthDay: '12' }, 'Choose both the day and the month, or neither'],
      [{ birthDay: '0', birthMonth: '1' }, 'Choose the day of your birthday'],
      [{ birthDay: '1', birthMonth: '13' }, 'Choose the month of your birthday'],
      [{ name: 'x'.repeat(81) }, 'Write your name in 80 characters or fewer'],
    ]
    const [{ count: before }] = (await sql<{ count: number }>(
      'select count(*)::int as count from passes where card_id = :cardId',
      { cardId },
    )) as [{ count: number }]
    for (const [form, message] of cases) {
      const response = await server.post(`/c/${slug}`, form)
      expect(response.status, message).toBe(400)
      const html = await pageText(response)
      expect(html, message).toContain(message)
      // What was typed stays in the form.
      if (form.email) expect(html).toContain(`value="${form.email}"`)
    }
    const [{ count: after }] = (await sql<{ count: number }>(
      'select count(*)::int as count from passes where card_id = :cardId',
      { cardId },
    )) as [{ count: number }]
    expect(after).toBe(before)
    // A number with its own prefix is fine anywhere; a French one needs none.
    const tourist = await server.post(`/c/${slug}`, { phone: '+1 212 555 0123' })
    expect(tourist.status).toBe(303)
    const local = await server.post(`/c/${slug}`, { phone: '06 12 34 56 78' })
    expect(local.status).toBe(303)
    const phones = await sql<{ phone: string }>(
      'select phone from holder_profiles where pass_id in (:ids) order by phone',
      { ids: [passIdOf(tourist), passIdOf(local)] },
    )
    expect(phones.map((row) => row.phone)).toEqual(['+12125550123', '+33612345678'])
  })

  test('on the pass after the 2nd stamp; the e-mail is confirmed by its link, once', async () => {
    const { owner, cardId, slug } = await ownerWithCard()
    await saveSettings(owner.cookie, cardId, settingsForm(['email', 'birthday']))
    const passId = passIdOf(await server.post(`/c/${slug}`, {}))!
    const ASK = 'Keep your card safe: get it back on a new phone'
    expect(await pageText(await server.fetch(`/p/${passId}`))).not.toContain(ASK)
    await stamp(owner.cookie, cardId, passId)
    expect(await pageText(await server.fetch(`/p/${passId}`))).not.toContain(ASK)
    await stamp(owner.cookie, cardId, passId)
    const pass = await pageText(await server.fetch(`/p/${passId}`))
    expect(pass).toContain(ASK)
    expect(pass).toContain(`href="/p/${passId}/details"`)

    const form = await pageText(await server.fetch(`/p/${passId}/details`))
    expect(form).toContain('We keep these to find your card again.')
    expect(form).not.toContain('Your name')

    const bad = await server.post(`/p/${passId}/details`, { email: 'not-an-address', birthDay: '31', birthMonth: '2' })
    expect(bad.status).toBe(400)
    const badPage = await pageText(bad)
    expect(badPage).toContain('Invalid email format')
    expect(badPage).toContain('February has no 31st')

    const email = `lena-${Date.now().toString(36)}@example.com`
    const saved = await server.post(`/p/${passId}/details`, {
      email: email.toUpperCase(),
      birthDay: '3',
      birthMonth: '7',
    })
    expect(saved.status).toBe(303)
    expect(saved.headers.get('Location')).toBe(`/p/${passId}/details?saved=confirm`)
    expect(await pageText(await server.fetch(`/p/${passId}`))).not.toContain(ASK)
    const [unconfirmed] = await sql<{ email: string; email_confirmed_at: Date | null }>(
      'select email, email_confirmed_at from holder_profiles where pass_id = :passId',
      { passId },
    )
    expect(unconfirmed).toEqual({ email, email_confirmed_at: null })

    const link = await confirmationLink(email)
    const confirmed = await server.fetch(link)
    expect(confirmed.status).toBe(200)
    expect(await pageText(confirmed)).toContain('Your e-mail is confirmed')
    const [row] = await sql<{ email_confirmed_at: Date | null }>(
      'select email_confirmed_at from holder_profiles where pass_id = :passId',
      { passId },
    )
    expect(row!.email_confirmed_at).not.toBeNull()
    const again = await server.fetch(link)
    expect(again.status).toBe(410)
    expect(await pageText(again)).toContain('This link was already used')
    expect((await server.fetch('/p/confirm-email?token=nonsense-token-that-is-long')).status).toBe(404)

    // A new address starts unconfirmed again; the old link can no longer confirm anything.
    const changed = await server.post(`/p/${passId}/details`, { email: `new-${email}` })
    expect(changed.status).toBe(303)
    const [after] = await sql<{ email: string; email_confirmed_at: Date | null }>(
      'select email, email_confirmed_at from holder_profiles where pass_id = :passId',
      { passId },
    )
    expect(after).toEqual({ email: `new-${email}`, email_confirmed_at: null })
  })

  test('an expired link confirms nothing; an unknown pass has no details page', async () => {
    const { owner, cardId, slug } = await ownerWithCard()
    await saveSettings(owner.cookie, cardId, settingsForm(['email'], { afterStamps: '1' }))
    const passId = passIdOf(await server.post(`/c/${slug}`, {}))!
    const email = `late-${Date.now().toString(36)}@example.com`
    expect((await server.post(`/p/${passId}/details`, { email })).status).toBe(303)
    const link = await confirmationLink(email)
    await sql(`update holder_tokens set expires_at = now() - interval '1 second' where pass_id = :passId`, { passId })
    const expired = await server.fetch(link)
    expect(expired.status).toBe(410)
    expect(await pageText(expired)).toContain('This link has expired')
    const [row] = await sql<{ email_confirmed_at: Date | null }>(
      'select email_confirmed_at from holder_profiles where pass_id = :passId',
      { passId },
    )
    expect(row!.email_confirmed_at).toBeNull()
    expect((await server.fetch('/p/00000000-0000-4000-8000-000000000000/details')).status).toBe(404)
    expect((await server.post('/p/00000000-0000-4000-8000-000000000000/details', { email })).status).toBe(404)
  })

  test('a card that asks nothing sends its details page back to the pass; removing the card removes the details', async () => {
    const owner = await createOwner()
    const cookie = await logIn(server, owner.email)
    const slug = `nothing-${Date.now().toString(36)}`
    const [card] = await sql<{ id: string }>(
      `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
       values (:userId, :slug, 'active', 'Tea card', 'Teehaus', 5, 'A pot of tea') returning id`,
      { userId: owner.id, slug },
    )
    const passId = passIdOf(await server.post(`/c/${slug}`, {}))!
    const page = await server.fetch(`/p/${passId}/details`)
    expect(page.status).toBe(302)
    expect(page.headers.get('Location')).toBe(`/p/${passId}`)
    await saveSettings(cookie, card!.id, settingsForm(['name'], { when: 'joining' }))
    expect((await server.post(`/p/${passId}/details`, { name: 'Ada' })).status).toBe(303)
    expect(await sql('select 1 from holder_profiles where pass_id = :passId', { passId })).toHaveLength(1)
    await sql('delete from passes where id = :passId', { passId })
    expect(await sql('select 1 from holder_profiles where pass_id = :passId', { passId })).toHaveLength(0)
  })
})

describe('the holder’s own data', () => {
  test('the page shows what is kept, masked; the download is for the browser that got the card', async () => {
    const { owner, cardId, slug } = await ownerWithCard()
    await saveSettings(owner.cookie, cardId, settingsForm(['name', 'email', 'phone'], { when: 'joining' }))
    const email = `data-${Date.now().toString(36)}@example.com`
    const joined = await server.post(`/c/${slug}`, { name: 'Lena Vogel', email, phone: '030 901820' })
    const passId = passIdOf(joined)!
    const cookie = joined.headers.getSetCookie()[0]!.split(';')[0]!
    await stamp(owner.cookie, cardId, passId)
    await stamp(owner.cookie, cardId, passId)

    const pass = await pageText(await server.fetch(`/p/${passId}`))
    expect(pass).toContain(`href="/p/${passId}/data"`)
    const page = await server.fetch(`/p/${passId}/data`)
    expect(page.status).toBe(200)
    const html = await pageText(page)
    expect(html).toContain('Your card: 2 stamps now, 0 rewards redeemed')
    expect(html).toContain('E-mail: d•••@example.com')
    expect(html).toContain('Phone: +49••••••20')
    expect(html).toContain('Name: L••• V•••')
    // Nowhere in the page, its hydration data included.
    for (const secret of [email, '+4930901820', 'Lena']) expect(html).not.toContain(secret)

    // Another browser (no join cookie) is sent back to the page, which says why, with 403.
    const stranger = await server.fetch(`/c/data/${passId}`)
    expect(stranger.status).toBe(303)
    expect(stranger.headers.get('Location')).toBe(`/p/${passId}/data?download=refused`)
    const refused = await server.fetch(`/p/${passId}/data?download=refused`)
    expect(refused.status).toBe(403)
    expect(await pageText(refused)).toContain('Only the browser this card was got in can download its data')

    const download = await server.fetch(`/c/data/${passId}`, { headers: { Cookie: cookie } })
    expect(download.status).toBe(200)
    expect(download.headers.get('Content-Type')).toContain('application/json')
    expect(download.headers.get('Content-Disposition')).toMatch(
      /^attachment; filename="stampwise-card-[A-Z2-9]{8}\.json"$/,
    )
    const body = (await download.json()) as {
      card: { businessName: string }
      pass: { stamps: number }
      profile: { name: string; email: string; emailConfirmed: boolean; phone: string }
      history: { kind: string; count: number }[]
      messages: unknown[]
      devices: { browsers: number }
    }
    expect(body.card.businessName).toBe('Café Kranz')
    expect(body.pass.stamps).toBe(2)
    expect(body.profile).toMatchObject({ name: 'Lena Vogel', email, emailConfirmed: false, phone: '+4930901820' })
    expect(body.history.map((row) => `${row.kind} ${row.count}`)).toEqual(['stamp 1', 'stamp 1'])
    expect(body.devices.browsers).toBe(0)
    expect(Object.keys(body)).not.toContain('cardId')
    expect((await server.fetch('/c/data/00000000-0000-4000-8000-000000000000')).status).toBe(404)
  })

  test('deleting the card deletes the details; the business keeps its counts, naming nobody', async () => {
    const { owner, cardId, slug } = await ownerWithCard()
    await saveSettings(owner.cookie, cardId, settingsForm(['email'], { when: 'joining' }))
    const joined = await server.post(`/c/${slug}`, { email: `gone-${Date.now().toString(36)}@example.com` })
    const passId = passIdOf(joined)!
    const cookie = joined.headers.getSetCookie()[0]!.split(';')[0]!
    await stamp(owner.cookie, cardId, passId)
    const data = await pageText(await server.fetch(`/p/${passId}/data`))
    expect(data).toContain(`href="/c/remove/${passId}"`)
    expect(await pageText(await server.fetch(`/c/remove/${passId}`, { headers: { Cookie: cookie } }))).toContain(
      'The details you gave for it go too',
    )
    const removed = await server.fetch(`/c/remove/${passId}`, { method: 'POST', headers: { Cookie: cookie } })
    expect(removed.status).toBe(303)
    expect(await sql('select 1 from holder_profiles where pass_id = :passId', { passId })).toHaveLength(0)
    expect(await sql('select 1 from holder_tokens where pass_id = :passId', { passId })).toHaveLength(0)
    expect(await sql('select 1 from passes where id = :passId', { passId })).toHaveLength(0)
    const [stamps] = await sql<{ count: number; named: number }>(
      `select count(*)::int as count, count(pass_id)::int as named from stamp_events where card_id = :cardId`,
      { cardId },
    )
    expect(stamps).toEqual({ count: 1, named: 0 })
    expect((await server.fetch(`/p/${passId}/data`)).status).toBe(404)
  })
})

describe('the owner’s side', () => {
  test('the holder’s page shows what was given; the owner corrects and erases it; another owner cannot', async () => {
    const { owner, cardId, slug } = await ownerWithCard()
    await saveSettings(owner.cookie, cardId, settingsForm(['name', 'email', 'phone', 'birthday'], { when: 'joining' }))
    const email = `fix-${Date.now().toString(36)}@example.com`
    const passId = passIdOf(await server.post(`/c/${slug}`, { name: 'Lena Vogle', email, phone: '030 901820' }))!
    const page = `/account/${cardId}/holders/${passId}`
    const html = await pageText(await server.fetch(page, { headers: { Cookie: owner.cookie } }))
    expect(html).toContain('Details the holder gave')
    expect(html).toContain('value="Lena Vogle"')
    expect(html).toContain('value="+49 30 901820"')
    expect(html).toContain('Not confirmed yet.')

    const post = (form: Record<string, string>, cookie = owner.cookie) =>
      server.fetch(page, { method: 'POST', headers: { Cookie: cookie }, body: new URLSearchParams(form) })
    const bad = await post({
      intent: 'correct',
      name: 'Lena Vogel',
      email,
      phone: 'nope',
      birthDay: '31',
      birthMonth: '4',
    })
    expect(bad.status).toBe(400)
    const badHtml = await pageText(bad)
    expect(badHtml).toContain('April has no 31st')

    const other = await signedInOwner(server)
    expect((await post({ intent: 'erase' }, other.cookie)).status).toBe(404)

    // The name corrected, the phone erased (left empty), the birthday added, the e-mail kept as it was.
    const fixed = await post({
      intent: 'correct',
      name: 'Lena Vogel',
      email,
      phone: '',
      birthDay: '3',
      birthMonth: '7',
    })
    expect(fixed.status).toBe(302)
    const [row] = await sql<Record<string, unknown>>(
      'select name, email, phone, birth_day, birth_month from holder_profiles where pass_id = :passId',
      { passId },
    )
    expect(row).toEqual({ name: 'Lena Vogel', email, phone: null, birth_day: 3, birth_month: 7 })
    expect(smtp.messagesTo(email).filter((mail) => mail.subject.startsWith('Confirm'))).toHaveLength(1)

    const erased = await post({ intent: 'erase' })
    expect(erased.status).toBe(302)
    expect(await sql('select 1 from holder_profiles where pass_id = :passId', { passId })).toHaveLength(0)
    expect(await pageText(await server.fetch(page, { headers: { Cookie: owner.cookie } }))).toContain('None yet.')
    const unknown = await post({ intent: 'nonsense' })
    expect(unknown.status).toBe(400)
  })
})
