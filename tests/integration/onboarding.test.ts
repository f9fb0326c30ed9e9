import sharp from 'sharp'
import { describe, expect, test } from 'vitest'
import { createOwner, signedInOwner } from '#tests/support/account-owner.ts'
import { expectAnswer, logIn, postJson, sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/** The card-creation onboarding pages and the /api/onboarding calls, over HTTP against the built app. */
const server = useTestServer()

const location = (response: Response) => response.headers.get('Location')

const DESIGN = {
  businessName: 'Café Crème & Co',
  title: 'Coffee card',
  stampsRequired: '8',
  backgroundColor: '#1F3A5F',
  textColor: '#ffffff',
  stampIcon: 'coffee',
}

async function cardRow(cardId: string) {
  const [row] = await sql<{
    slug: string
    status: string
    onboarding_step: string | null
    background_color: string
    stamps_required: number
    reward: string
    logo_content_type: string | null
  }>(
    `select slug, status, onboarding_step, background_color, stamps_required, reward, logo_content_type from cards where id = :cardId`,
    { cardId },
  )
  return row!
}

async function insertCard(userId: string, status = 'active', onboardingStep: string | null = null) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, onboarding_step) values (:userId, :slug, :status, 'Old card', 'Old shop', :onboardingStep) returning id`,
    { userId, slug: `card-${Math.random().toString(36).slice(2, 10)}`, status, onboardingStep },
  )
  return card!.id
}

/** Designs a card on /main and returns its id. */
async function designCard(cookie: string, design: Record<string, string> = DESIGN, path = '/main') {
  const response = await server.post(path, design, cookie)
  expect(response.status).toBe(302)
  const match = /^\/card_reward\?cardId=([0-9a-f-]{36})$/.exec(location(response) ?? '')
  expect(match, `redirect to the reward step, got ${location(response)}`).not.toBeNull()
  return match![1]!
}

/** /main with an unfinished card: the question, not a redirect; returns where 'Continue' leads. */
async function continuePath(cookie: string) {
  const response = await server.get('/main', cookie)
  expect(response.status).toBe(200)
  const html = await response.text()
  expect(html).toContain('Continue your card or start a new one?')
  return /<a[^>]*href="([^"]+)"[^>]*>Continue “/.exec(html)?.[1]?.replaceAll('&amp;', '&')
}

const noticeCount = async (userId: string) =>
  (
    await sql<{ count: number }>(
      `select count(*)::int as count from notices where user_id = :userId and kind = 'first_card_ready'`,
      { userId },
    )
  )[0]!.count

describe('onboarding pages', () => {
  test('a guest is sent to /login', async () => {
    for (const path of ['/main', '/card_reward?cardId=x', '/win_win?cardId=x', '/premaid_card', '/info-without-fb']) {
      const response = await server.get(path)
      expect(response.status).toBe(302)
      expect(location(response)).toMatch(/^\/login\?redirectTo=/)
    }
  })

  test('a new owner designs a card, sets the reward and walks through to the end; leaving offers to continue', async () => {
    const owner = await signedInOwner(server)
    const empty = await (await server.get('/main', owner.cookie)).text()
    expect(empty).toContain('Design your stamp card')
    expect(empty).toContain('type="color"')
    expect(empty).toContain('Step 1 of 7')
    expect(empty).not.toContain('account-header')

    const cardId = await designCard(owner.cookie)
    const saved = await cardRow(cardId)
    expect(saved).toMatchObject({
      status: 'draft',
      onboarding_step: 'card_reward',
      background_color: '#1f3a5f',
      stamps_required: 8,
    })
    expect(saved.slug).toMatch(/^[a-z0-9-]{3,64}$/)
    expect(saved.slug).toMatch(/^cafe-creme-co-[a-z0-9]{6}$/)

    // Leaving after the design step and opening /main again offers to continue at the reward; the design stays
    // editable.
    expect(await continuePath(owner.cookie)).toBe(`/card_reward?cardId=${cardId}`)
    const prefilled = await (await server.get(`/main?cardId=${cardId}`, owner.cookie)).text()
    expect(prefilled).toContain('value="Café Crème &amp; Co"')
    expect(prefilled).toContain(`href="/card_reward?cardId=${cardId}"`)
    // The preview is rendered on the server from the saved draft.
    expect(prefilled).toMatch(/class="card-preview[^"]*" style="background-color:#1f3a5f;color:#ffffff"/)
    // Pages after the reward wait for it.
    expect(location(await server.get(`/card_ready?cardId=${cardId}`, owner.cookie))).toBe(
      `/card_reward?cardId=${cardId}`,
    )

    const invalid = await server.post(
      `/card_reward?cardId=${cardId}`,
      { reward: ' ', terms: 'x'.repeat(601) },
      owner.cookie,
    )
    expect(invalid.status).toBe(400)
    const invalidHtml = await invalid.text()
    expect(invalidHtml).toContain('Describe the reward')
    expect(invalidHtml).toContain('The terms must be 600 characters or fewer')
    expect((await cardRow(cardId)).status).toBe('draft')

    const rewarded = await server.post(
      `/card_reward?cardId=${cardId}`,
      { reward: 'A free coffee', terms: 'One stamp per visit' },
      owner.cookie,
    )
    expect(location(rewarded)).toBe(`/card_ready?cardId=${cardId}`)
    expect(await cardRow(cardId)).toMatchObject({
      status: 'active',
      onboarding_step: 'card_ready',
      reward: 'A free coffee',
    })
    expect(await noticeCount(owner.id)).toBe(1)
    const [notice] = await sql<{ link: string; dedupe_key: string }>(
      `select link, dedupe_key from notices where user_id = :id`,
      { id: owner.id },
    )
    expect(notice).toEqual({ link: `/account/${cardId}`, dedupe_key: `first-card-ready:${owner.id}` })
    expect(await continuePath(owner.cookie)).toBe(`/card_ready?cardId=${cardId}`)

    const ready = await (await server.get(`/card_ready?cardId=${cardId}`, owner.cookie)).text()
    expect(ready).toContain('Your card is ready')
    expect(ready).toMatch(/Reward: (<!-- -->)?A free coffee/)
    // Inside a sentence the owner's line-start capital goes (issue 30, item 7); the preview's line keeps it.
    expect(ready.replaceAll('<!-- -->', '')).toContain('When it is full, they get a free coffee.')
    expect(ready).not.toMatch(/they get (<!-- -->)?A free coffee/)

    const steps = ['card_ready', 'your_qr_code', 'easy_way', 'place_your_qr'] as const
    for (const [index, step] of steps.entries()) {
      const next = index + 1 < steps.length ? steps[index + 1] : 'win_win'
      expect((await server.get(`/${step}?cardId=${cardId}`, owner.cookie)).status).toBe(200)
      expect(location(await server.post(`/${step}?cardId=${cardId}`, {}, owner.cookie))).toBe(
        `/${next}?cardId=${cardId}`,
      )
      expect((await cardRow(cardId)).onboarding_step).toBe(next)
      expect(await continuePath(owner.cookie)).toBe(`/${next}?cardId=${cardId}`)
    }
    const qrPage = await (await server.get(`/your_qr_code?cardId=${cardId}`, owner.cookie)).text()
    expect(qrPage).toContain('<svg')
    expect(qrPage).toContain(`/c/${saved.slug}`)
    expect(qrPage).toContain(`href="/account/${cardId}/qr_code"`)
    expect(await (await server.get(`/easy_way?cardId=${cardId}`, owner.cookie)).text()).toContain(
      `href="/account/${cardId}/scan"`,
    )
    expect(await (await server.get(`/place_your_qr?cardId=${cardId}`, owner.cookie)).text()).toContain(
      `href="/account/${cardId}/qr_code"`,
    )

    const done = await server.post(`/win_win?cardId=${cardId}`, { intent: 'card' }, owner.cookie)
    expect(location(done)).toBe(`/account/${cardId}`)
    expect((await cardRow(cardId)).onboarding_step).toBeNull()
    // Finished: /main opens an empty designer for the next card, and a later design edit does not restart the steps.
    expect((await server.get('/main', owner.cookie)).status).toBe(200)
    const second = await designCard(owner.cookie)
    await server.post(`/card_reward?cardId=${second}`, { reward: 'A cake', terms: '' }, owner.cookie)
    expect((await cardRow(second)).status).toBe('active')
    expect(await noticeCount(owner.id)).toBe(1)
    expect(location(await server.post(`/main?cardId=${cardId}`, DESIGN, owner.cookie))).toBe(
      `/card_reward?cardId=${cardId}`,
    )
    expect((await cardRow(cardId)).onboarding_step).toBeNull()
  })

  test('validation messages come back on the page, with the values kept', async () => {
    const owner = await signedInOwner(server)
    const response = await server.post(
      '/main',
      {
        ...DESIGN,
        businessName: '',
        title: 'x'.repeat(61),
        stampsRequired: '21',
        backgroundColor: 'red',
        stampIcon: 'dragon',
      },
      owner.cookie,
    )
    expect(response.status).toBe(400)
    const html = await response.text()
    for (const message of [
      'Enter your business name',
      'The card title must be 60 characters or fewer',
      'Choose how many stamps are needed, from 1 to 20',
      'Choose a colour in the form #rrggbb',
      'Choose one of the stamp icons',
    ]) {
      expect(html).toContain(message)
    }
    expect(await sql(`select id from cards where user_id = :id`, { id: owner.id })).toEqual([])
  })

  test('the preview warns about text that is hard to read', async () => {
    const owner = await signedInOwner(server)
    const cardId = await designCard(owner.cookie, { ...DESIGN, backgroundColor: '#ffffff', textColor: '#ffff66' })
    expect(await (await server.get(`/main?cardId=${cardId}`, owner.cookie)).text()).toContain(
      'Your text may be hard to read on this background',
    )
    await designCard(
      owner.cookie,
      { ...DESIGN, backgroundColor: '#ffffff', textColor: '#222222' },
      `/main?cardId=${cardId}`,
    )
    expect(await (await server.get(`/main?cardId=${cardId}`, owner.cookie)).text()).not.toContain('hard to read')
  })

  test('a logo is checked by its content, stored small and shown in the preview', async () => {
    const owner = await signedInOwner(server)
    const png = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#c0392b' } })
      .png()
      .toBuffer()
    const form = new FormData()
    for (const [name, value] of Object.entries(DESIGN)) form.set(name, value)
    form.set('logo', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'logo.png')
    const response = await server.fetch('/main', { method: 'POST', headers: { Cookie: owner.cookie }, body: form })
    expect(response.status).toBe(302)
    const cardId = new URL(location(response)!, server.baseUrl).searchParams.get('cardId')!
    expect((await cardRow(cardId)).logo_content_type).toBe('image/webp')
    expect(await (await server.get(`/main?cardId=${cardId}`, owner.cookie)).text()).toContain(
      'src="data:image/webp;base64,',
    )

    const text = new FormData()
    for (const [name, value] of Object.entries(DESIGN)) text.set(name, value)
    text.set('logo', new Blob(['not an image'], { type: 'image/png' }), 'logo.png')
    const refused = await server.fetch(`/main?cardId=${cardId}`, {
      method: 'POST',
      headers: { Cookie: owner.cookie },
      body: text,
    })
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain('Upload a PNG, JPEG or WebP image')
  })

  test('another owner’s card, or a malformed id, is a 404 on every step', async () => {
    const owner = await signedInOwner(server)
    const other = await createOwner()
    const foreign = await insertCard(other.id, 'active', 'card_ready')
    for (const step of ['main', 'card_reward', 'card_ready', 'your_qr_code', 'easy_way', 'place_your_qr', 'win_win']) {
      for (const id of [foreign, 'not-a-uuid']) {
        expect((await server.get(`/${step}?cardId=${id}`, owner.cookie)).status, `GET ${step} ${id}`).toBe(404)
        expect(
          (await server.post(`/${step}?cardId=${id}`, { ...DESIGN, reward: 'x' }, owner.cookie)).status,
          `POST ${step} ${id}`,
        ).toBe(404)
      }
    }
    expect(await cardRow(foreign)).toMatchObject({ status: 'active', onboarding_step: 'card_ready', reward: '' })
  })

  test('the card limit refuses a new card, with the link to the plans', async () => {
    const owner = await signedInOwner(server)
    for (let i = 0; i < 3; i++) await insertCard(owner.id)
    const page = await (await server.get('/main', owner.cookie)).text()
    expect(page).toContain(
      'Your plan includes 3 active cards. Archive a card or choose a bigger plan to create another.',
    )
    expect(page).toContain('href="/account/tariffs"')
    const refused = await server.post('/main', DESIGN, owner.cookie)
    expect(refused.status).toBe(403)
    const html = await refused.text()
    expect(html).toContain('Your plan includes 3 active cards.')
    expect(html).toContain('href="/account/tariffs"')
    expect((await sql(`select id from cards where user_id = :id`, { id: owner.id })).length).toBe(3)
  })

  test('/premaid_card shows the card an admin made; an owner who made their own card goes to /account', async () => {
    const owner = await signedInOwner(server)
    // No card yet: where an owner starts, the designer.
    expect(location(await server.get('/premaid_card', owner.cookie))).toBe('/main')
    // Their own card (designed through the onboarding): nothing was made for them.
    const own = await designCard(owner.cookie)
    await server.post(`/card_reward?cardId=${own}`, { reward: 'A free coffee', terms: '' }, owner.cookie)
    const redirected = await server.get('/premaid_card', owner.cookie)
    expect(redirected.status).toBe(302)
    expect(location(redirected)).toBe('/account')

    // A pre-made account's card, as the admin's action marks it.
    const premade = await createOwner()
    const premadeCookie = await logIn(server, premade.email)
    const cardId = await insertCard(premade.id)
    await sql(`update cards set premade = true where id = :cardId`, { cardId })
    await insertCard(premade.id) // a card the owner made later does not replace it
    const html = await (await server.get('/premaid_card', premadeCookie)).text()
    expect(html).toContain('We made your card for you')
    expect(html).toContain(`href="/your_qr_code?cardId=${cardId}"`)
    expect(await (await server.get('/info-without-fb', owner.cookie)).text()).toContain('Google Business Profile')
  })
})

describe('Create a card with an earlier card unfinished', () => {
  const startNew = (cookie: string, cardId: string) => server.post('/main', { intent: 'start-new', cardId }, cookie)
  const cardCount = async (userId: string) =>
    (await sql(`select id from cards where user_id = :userId`, { userId })).length

  test('asks to continue or start anew; starting anew deletes an unfinished draft', async () => {
    const owner = await signedInOwner(server)
    const draft = await designCard(owner.cookie)
    const page = await server.get('/main', owner.cookie)
    expect(page.status, 'a question, not a silent redirect into the old card').toBe(200)
    const html = await pageText(page)
    expect(html).toContain('Continue your card or start a new one?')
    expect(html).toContain(
      'You have not finished setting up “Coffee card”. It has no reward yet, so customers cannot join it.',
    )
    expect(html).toMatch(new RegExp(`<a[^>]*href="/card_reward\\?cardId=${draft}"[^>]*>Continue “Coffee card`))
    expect(html).toMatch(/<form method="post" action="\/main"[^>]*>/)
    expect(html).toContain('<input type="hidden" name="intent" value="start-new"/>')
    expect(html).toContain(`<input type="hidden" name="cardId" value="${draft}"/>`)
    expect(html).toContain('Delete the draft and start a new card')
    expect(html).toContain('Starting a new card deletes the unfinished draft “Coffee card”.')

    const started = await startNew(owner.cookie, draft)
    expect(started.status).toBe(302)
    expect(location(started)).toBe('/main?new')
    expect(await cardCount(owner.id)).toBe(0)
    const designer = await (await server.get('/main', owner.cookie)).text()
    expect(designer).toContain('Design your stamp card')
    expect(designer).not.toContain('Continue your card')
    // The same click again (a double submit): the draft is gone, so it is not found.
    expect((await startNew(owner.cookie, draft)).status).toBe(404)
  })

  test('starting anew keeps a card holders can already join, and does not offer it again', async () => {
    const owner = await signedInOwner(server)
    const cardId = await designCard(owner.cookie)
    await server.post(`/card_reward?cardId=${cardId}`, { reward: 'A free coffee', terms: '' }, owner.cookie)
    await server.post(`/card_ready?cardId=${cardId}`, {}, owner.cookie)
    const html = await pageText(await server.get('/main', owner.cookie))
    expect(html).toContain('You have not finished setting up “Coffee card”. Customers can already join it.')
    expect(html).toContain(`href="/your_qr_code?cardId=${cardId}"`)
    expect(html).toContain('>Start a new card</button>')
    expect(html).not.toContain('Delete the draft')
    expect(html).toContain('Starting a new card keeps “Coffee card” in your cards, ready to use.')

    expect(location(await startNew(owner.cookie, cardId))).toBe('/main?new')
    expect(await cardRow(cardId)).toMatchObject({ status: 'active', onboarding_step: null })
    expect(await (await server.get('/main', owner.cookie)).text()).toContain('Design your stamp card')
    const second = await designCard(owner.cookie)
    expect(second).not.toBe(cardId)
    expect(await continuePath(owner.cookie)).toBe(`/card_reward?cardId=${second}`)
  })

  test('the plan’s card limit: a draft’s place is freed, a joinable card’s is not', async () => {
    const owner = await signedInOwner(server)
    // Trial: 3 cards. Two finished cards and an unfinished draft: deleting the draft makes room.
    await insertCard(owner.id)
    await insertCard(owner.id)
    const draft = await insertCard(owner.id, 'draft', 'card_reward')
    expect(await (await server.get('/main', owner.cookie)).text()).toContain('Delete the draft and start a new card')
    expect(location(await startNew(owner.cookie, draft))).toBe('/main?new')
    expect(await cardCount(owner.id)).toBe(2)
    expect(await (await server.get('/main', owner.cookie)).text()).toContain('Design your stamp card')

    // Three cards, one of them joinable but unfinished: no room for a new one; only Continue is offered.
    const unfinished = await insertCard(owner.id, 'active', 'easy_way')
    const full = await (await server.get('/main', owner.cookie)).text()
    expect(full).toContain(`href="/easy_way?cardId=${unfinished}"`)
    expect(full).not.toContain('name="intent" value="start-new"')
    expect(full).toContain('Your plan includes 3 active cards.')
    const refused = await startNew(owner.cookie, unfinished)
    expect(refused.status).toBe(403)
    expect(await refused.text()).toContain('Your plan includes 3 active cards.')
    expect((await cardRow(unfinished)).onboarding_step).toBe('easy_way')

    // An ended plan allows no card at all: the draft is kept.
    const ended = await signedInOwner(server)
    const endedDraft = await insertCard(ended.id, 'draft', 'card_reward')
    await sql(
      `update subscriptions set status = 'ended', trial_ends_at = now() - interval '1 day' where user_id = :id`,
      { id: ended.id },
    )
    expect(await (await server.get('/main', ended.cookie)).text()).toContain(
      'Your plan has ended, so you cannot create new cards.',
    )
    expect((await startNew(ended.cookie, endedDraft)).status).toBe(403)
    expect(await cardCount(ended.id)).toBe(1)
  })

  test('another owner’s card, a malformed id or a missing one is refused', async () => {
    const owner = await signedInOwner(server)
    const other = await createOwner()
    const foreign = await insertCard(other.id, 'draft', 'card_reward')
    expect((await startNew(owner.cookie, foreign)).status).toBe(404)
    expect((await startNew(owner.cookie, 'not-a-uuid')).status).toBe(404)
    const unreadable = await server.post('/main', { intent: 'start-new' }, owner.cookie)
    expect(unreadable.status).toBe(400)
    expect(await unreadable.text()).toContain('Choose again: continue your unfinished card or start a new one.')
    expect(await cardRow(foreign)).toMatchObject({ status: 'draft', onboarding_step: 'card_reward' })
  })
})

describe('/api/onboarding', () => {
  const call = (owner: { cookie: string }, path: string, body: unknown) =>
    postJson(server, `/api/onboarding/${path}`, body, { Cookie: owner.cookie })
  const design = { ...DESIGN, stampsRequired: 8 }

  test('guests get 401 and other methods 405', async () => {
    for (const path of ['card-ready', 'qr-code', 'total-cards']) {
      await expectAnswer(await server.get(`/api/onboarding/${path}`), 401, {
        status: 'error',
        message: 'Please sign in',
      })
      expect((await server.fetch(`/api/onboarding/${path}`, { method: 'POST' })).status).toBe(405)
    }
    for (const path of ['card-constructor', 'card-reward']) {
      await expectAnswer(await postJson(server, `/api/onboarding/${path}`, design), 401, {
        status: 'error',
        message: 'Please sign in',
      })
      expect((await server.get(`/api/onboarding/${path}`)).status).toBe(405)
    }
  })

  test('card-constructor, card-reward, card-ready, qr-code and total-cards', async () => {
    const owner = await signedInOwner(server)
    expect(await (await server.get('/api/onboarding/total-cards', owner.cookie)).json()).toMatchObject({
      status: 'success',
      total_cards: 0,
    })
    const created = await expectAnswer(await call(owner, 'card-constructor', design), 201, { status: 'success' })
    const card = created.card as Record<string, unknown>
    expect(card).toMatchObject({
      title: 'Coffee card',
      businessName: 'Café Crème & Co',
      stampsRequired: 8,
      backgroundColor: '#1f3a5f',
      textColor: '#ffffff',
      stampIcon: 'coffee',
      status: 'draft',
    })
    expect(card.slug).toMatch(/^[a-z0-9-]{3,64}$/)
    const cardId = card.id as string

    const updated = await expectAnswer(
      await call(owner, 'card-constructor', { ...design, cardId, title: 'Tea card' }),
      200,
      { status: 'success' },
    )
    expect(updated.card).toMatchObject({ id: cardId, title: 'Tea card', slug: card.slug })

    const rewarded = await expectAnswer(
      await call(owner, 'card-reward', { cardId, reward: 'A free tea', terms: '' }),
      200,
      { status: 'success' },
    )
    expect(rewarded.card).toMatchObject({ id: cardId, status: 'active', reward: 'A free tea' })
    expect(await noticeCount(owner.id)).toBe(1)

    const ready = await expectAnswer(await server.get('/api/onboarding/card-ready', owner.cookie), 200, {
      status: 'success',
    })
    expect(ready.card).toMatchObject({ id: cardId })
    const qr = await expectAnswer(await server.get(`/api/onboarding/qr-code?cardId=${cardId}`, owner.cookie), 200, {
      status: 'success',
    })
    expect(qr.join_url).toMatch(new RegExp(`/c/${card.slug as string}$`))
    expect(qr.qr_svg).toMatch(/^<svg/)
    expect(await (await server.get('/api/onboarding/total-cards', owner.cookie)).json()).toMatchObject({
      total_cards: 1,
    })
  })

  test('invalid bodies answer 400 with the field messages', async () => {
    const owner = await signedInOwner(server)
    const body = await expectAnswer(
      await call(owner, 'card-constructor', {
        businessName: '',
        title: 'Card',
        stampsRequired: 0,
        backgroundColor: '#fff',
        textColor: '#ffffff',
        stampIcon: 'star',
      }),
      400,
      {
        status: 'error',
        errors: {
          businessName: ['Enter your business name'],
          stampsRequired: ['Choose how many stamps are needed, from 1 to 20'],
          backgroundColor: ['Choose a colour in the form #rrggbb'],
        },
      },
    )
    expect(body.message).toBe('Enter your business name')
    await expectAnswer(await call(owner, 'card-reward', { reward: 'x'.repeat(121) }), 400, {
      status: 'error',
      errors: { cardId: ['Give the card’s id'], reward: ['The reward must be 120 characters or fewer'] },
    })
    // A form body works too (numbers arrive as text).
    const form = await server.fetch('/api/onboarding/card-constructor', {
      method: 'POST',
      headers: { Cookie: owner.cookie },
      body: new URLSearchParams(DESIGN),
    })
    expect(form.status).toBe(201)
  })

  test('another owner’s card or a malformed id is a 404; the card limit a 403', async () => {
    const owner = await signedInOwner(server)
    const other = await createOwner()
    const foreign = await insertCard(other.id)
    for (const id of [foreign, 'not-a-uuid']) {
      await expectAnswer(await call(owner, 'card-reward', { cardId: id, reward: 'Mine now' }), 404, {
        status: 'error',
        message: 'Card not found',
      })
      await expectAnswer(await call(owner, 'card-constructor', { ...design, cardId: id }), 404, {
        status: 'error',
        message: 'Card not found',
      })
      await expectAnswer(await server.get(`/api/onboarding/card-ready?cardId=${id}`, owner.cookie), 404, {
        status: 'error',
        message: 'Card not found',
      })
      await expectAnswer(await server.get(`/api/onboarding/qr-code?cardId=${id}`, owner.cookie), 404, {
        status: 'error',
        message: 'Card not found',
      })
    }
    await expectAnswer(await server.get('/api/onboarding/card-ready', owner.cookie), 404, {
      status: 'error',
      message: 'Card not found',
    })
    expect((await cardRow(foreign)).reward).toBe('')

    for (let i = 0; i < 3; i++) await insertCard(owner.id)
    const limited = await expectAnswer(await call(owner, 'card-constructor', design), 403, {
      status: 'error',
      message: 'Your plan includes 3 active cards. Archive a card or choose a bigger plan to create another.',
    })
    expect(limited.upgrade_url).toBe('/account/tariffs')
  })
})
