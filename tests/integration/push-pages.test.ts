import crypto from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { PUSH_MESSAGES } from '#app/utils/push-message.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * The owner's push pages (start, composer, templates, confirm with 'Send' and progress) and their two JSON calls,
 * over HTTP against the built app. No job queue runs here: a sent message stays 'queued', which is all these
 * pages promise (delivery has its own tests).
 */
const server = useTestServer()

const NO_QUOTA_LEFT = 'You have no push messages left this month. Upgrade your plan or ask us for additional messages.'
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

async function createCard(userId: string) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name) values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee') returning id`,
    { userId, slug: `push-${crypto.randomBytes(5).toString('hex')}` },
  )
  return card!.id
}

/** A holder's pass with a push subscription (the subscription call itself is tested elsewhere). */
async function addSubscriber(cardId: string) {
  const shortCode = Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join('')
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) values (:cardId, :shortCode) returning id`,
    { cardId, shortCode },
  )
  await sql(
    `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values (:passId, :endpoint, 'p256dh-key', 'auth-key')`,
    {
      passId: pass!.id,
      endpoint: `https://fcm.googleapis.com/fcm/send/x-${shortCode}`,
    },
  )
}

async function ownTemplate(userId: string, title = 'Own template') {
  const [row] = await sql<{ id: string }>(
    `insert into templates (user_id, title, body) values (:userId, :title, 'Own body') returning id`,
    { userId, title },
  )
  return row!.id
}

const sharedTemplate = async () =>
  (
    await sql<{ id: string; title: string; body: string }>(
      `select id, title, body from templates where user_id is null order by created_at, title limit 1`,
    )
  )[0]!

/** The page's own content, without the account header (whose feedback form has a 'Send' button too). */
const mainOf = (page: string) => page.slice(page.indexOf('<main id="content"'))
const base = (cardId: string) => `/account/${cardId}/push_notification`

/** Composes a message through the composer and answers its draft's id. */
async function createDraft(
  cookie: string,
  cardId: string,
  form: Record<string, string> = { title: 'Double stamps', body: 'Only today!' },
) {
  const response = await server.post(`${base(cardId)}/create`, form, cookie)
  expect(response.status).toBe(302)
  const location = response.headers.get('Location')!
  expect(location).toMatch(new RegExp(`^${base(cardId)}/confirm/${UUID}$`))
  return location.split('/').pop()!
}

async function fillMonthlyQuota(userId: string, cardId: string, count = 10) {
  await sql(
    `insert into notifications (card_id, user_id, title, body, status, queued_at, quota_source, recipients)
     select :cardId, :userId, 'Earlier', 'Earlier message', 'done', now(), 'monthly', 0 from generate_series(1, :count)`,
    { cardId, userId, count },
  )
}

describe('the start page and the template list', () => {
  test('offer scratch or a template, with the quota and reach; templates grouped, each opening the composer', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const own = await ownTemplate(owner.id, 'Our autumn menu')
    const shared = await sharedTemplate()
    const start = await pageText(await server.get(base(cardId), owner.cookie))
    expect(start).toContain('<h1>Create push</h1>')
    expect(start).toContain(`href="${base(cardId)}/create"`)
    expect(start).toContain('Start from scratch')
    expect(start).toContain(`href="${base(cardId)}/template"`)
    expect(start).toContain('Use a template')
    expect(start).toContain(`href="${base(cardId)}/template/${own}/create"`)
    expect(start).toContain('0 of 10 messages sent')
    expect(start).toContain('0 devices')

    const list = await pageText(await server.get(`${base(cardId)}/template`, owner.cookie))
    expect(list).toContain('<h1>Push-notification</h1>')
    expect(list.indexOf('Ready-made templates')).toBeLessThan(list.indexOf(shared.title))
    expect(list.indexOf('Your templates')).toBeLessThan(list.indexOf('Our autumn menu'))
    expect(list).toContain(`href="${base(cardId)}/template/${shared.id}/create"`)
    expect(list).toContain(`href="${base(cardId)}/template/${own}/create"`)
  })
})

describe('the composer', () => {
  test('shows labelled fields, counters, the preview and the template box', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const page = await pageText(await server.get(`${base(cardId)}/create`, owner.cookie))
    expect(page).toContain('<h1>Create push</h1>')
    for (const label of ['Title', 'Message', 'Link (optional)', 'Also save as a template'])
      expect(page).toContain(label)
    expect(page).toContain('0 / 50')
    expect(page).toContain('0 / 180')
    expect(page).toContain('Corner Coffee · now')
  })

  test('invalid input answers 400 with each field’s message, the values and counters kept', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const empty = await server.post(`${base(cardId)}/create`, { title: '', body: '', link: '' }, owner.cookie)
    expect(empty.status).toBe(400)
    const emptyPage = await pageText(empty)
    expect(emptyPage).toContain(PUSH_MESSAGES.title)
    expect(emptyPage).toContain(PUSH_MESSAGES.body)

    const long = await server.post(
      `${base(cardId)}/create`,
      { title: 'T'.repeat(51), body: 'B'.repeat(181), link: 'not a link' },
      owner.cookie,
    )
    expect(long.status).toBe(400)
    const page = await pageText(long)
    expect(page).toContain(PUSH_MESSAGES.titleLong)
    expect(page).toContain(PUSH_MESSAGES.bodyLong)
    expect(page).toContain(PUSH_MESSAGES.link)
    expect(page).toContain('51 / 50')
    expect(page).toContain('181 / 180')
    expect(page).toContain(`value="${'T'.repeat(51)}"`)
    expect(await sql(`select 1 from notifications where card_id = :cardId`, { cardId })).toEqual([])
  })

  test('saves a draft, then the confirm page; Edit reopens it and saving changes the same draft', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const id = await createDraft(owner.cookie, cardId, {
      title: 'Double stamps',
      body: 'Only today!',
      link: 'https://example.com/offer',
    })
    const [row] = await sql<{ status: string; title: string; link: string }>(
      `select status, title, link from notifications where id = :id`,
      { id },
    )
    expect(row).toEqual({ status: 'draft', title: 'Double stamps', link: 'https://example.com/offer' })

    const confirm = await pageText(await server.get(`${base(cardId)}/confirm/${id}`, owner.cookie))
    expect(confirm).toContain('<h1>Push-notification</h1>')
    expect(confirm).toContain('Double stamps')
    expect(confirm).toContain('Will reach 0 devices')
    expect(confirm).toContain('0 of 10 messages')
    // Nobody reachable: the notice of what raises reach (push-no-reach.test.ts), and Send disabled.
    expect(confirm).toContain('Nobody can receive a message from this card yet')
    expect(mainOf(confirm)).toMatch(/<button[^>]*disabled=""[^>]*>Send<\/button>/)
    expect(confirm).toContain(`href="${base(cardId)}/create?draft=${id}"`)

    const edit = await pageText(await server.get(`${base(cardId)}/create?draft=${id}`, owner.cookie))
    expect(edit).toContain('value="Double stamps"')
    expect(edit).toContain('13 / 50')
    expect(edit).toContain(`name="draft" value="${id}"`)
    const saved = await server.post(
      `${base(cardId)}/create`,
      { draft: id, title: 'Triple stamps', body: 'Only today!' },
      owner.cookie,
    )
    expect(saved.headers.get('Location')).toBe(`${base(cardId)}/confirm/${id}`)
    expect(await sql(`select title, link from notifications where card_id = :cardId`, { cardId })).toEqual([
      { title: 'Triple stamps', link: null },
    ])
  })

  test('‘Also save as a template’ keeps the message among the owner’s templates', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    await createDraft(owner.cookie, cardId, { title: 'Keep me', body: 'For later', saveAsTemplate: 'on' })
    expect(await sql(`select title, body from templates where user_id = :id`, { id: owner.id })).toEqual([
      { title: 'Keep me', body: 'For later' },
    ])
    await createDraft(owner.cookie, cardId, { title: 'Not me', body: 'Once' })
    expect(await sql(`select 1 from templates where user_id = :id`, { id: owner.id })).toHaveLength(1)
  })

  test('a template fills the composer, and the draft remembers it', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const shared = await sharedTemplate()
    const page = await pageText(await server.get(`${base(cardId)}/template/${shared.id}/create`, owner.cookie))
    expect(page).toContain('<h1>Create push</h1>')
    expect(page).toContain(`value="${shared.title}"`)
    expect(page).toContain(`${shared.body}</textarea>`)
    expect(page).toContain(`${shared.title.length} / 50`)
    expect(page).toContain(`${shared.body.length} / 180`)
    const response = await server.post(
      `${base(cardId)}/template/${shared.id}/create`,
      { title: shared.title, body: shared.body },
      owner.cookie,
    )
    expect(response.status).toBe(302)
    const id = response.headers.get('Location')!.split('/').pop()!
    expect(await sql(`select template_id from notifications where id = :id`, { id })).toEqual([
      { template_id: shared.id },
    ])
  })

  test('another owner’s card, draft or template, and malformed ids, are 404', async () => {
    const owner = await signedInOwner(server)
    const other = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const foreignCard = await createCard(other.id)
    const foreignTemplate = await ownTemplate(other.id)
    const foreignDraft = await createDraft(other.cookie, foreignCard)
    const paths = [
      base(foreignCard),
      `${base(foreignCard)}/create`,
      `${base(foreignCard)}/template`,
      `${base(foreignCard)}/template/${(await sharedTemplate()).id}/create`,
      `${base(foreignCard)}/confirm/${foreignDraft}`,
      `${base(cardId)}/confirm/${foreignDraft}`,
      `${base(cardId)}/create?draft=${foreignDraft}`,
      `${base(cardId)}/template/${foreignTemplate}/create`,
      `${base(cardId)}/template/not-a-uuid/create`,
      `${base(cardId)}/confirm/not-a-uuid`,
      `/account/not-a-uuid/push_notification/create`,
    ]
    for (const pathname of paths) expect((await server.get(pathname, owner.cookie)).status, pathname).toBe(404)
    const message = { title: 'Hi', body: 'There' }
    expect((await server.post(`${base(foreignCard)}/create`, message, owner.cookie)).status).toBe(404)
    expect(
      (await server.post(`${base(cardId)}/template/${foreignTemplate}/create`, message, owner.cookie)).status,
    ).toBe(404)
    expect(
      (await server.post(`${base(cardId)}/create`, { ...message, draft: foreignDraft }, owner.cookie)).status,
    ).toBe(404)
    expect((await server.post(`${base(foreignCard)}/confirm/${foreignDraft}`, {}, owner.cookie)).status).toBe(404)
    expect(await sql(`select title, status from notifications where id = :id`, { id: foreignDraft })).toEqual([
      { title: 'Double stamps', status: 'draft' },
    ])
  })

  test('an ended plan is sent to /account/limits_trial, except the history and a sent message’s progress', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    await addSubscriber(cardId)
    const draft = await createDraft(owner.cookie, cardId)
    const sent = await createDraft(owner.cookie, cardId)
    expect((await server.post(`${base(cardId)}/confirm/${sent}`, {}, owner.cookie)).status).toBe(302)
    await sql(
      `update subscriptions set status = 'ended', trial_ends_at = now() - interval '1 day', additional_quota = 0 where user_id = :id`,
      { id: owner.id },
    )
    const gated = [
      base(cardId),
      `${base(cardId)}/create`,
      `${base(cardId)}/template`,
      `${base(cardId)}/template/${(await sharedTemplate()).id}/create`,
      `${base(cardId)}/confirm/${draft}`,
    ]
    for (const pathname of gated) {
      const response = await server.get(pathname, owner.cookie)
      expect(response.status, pathname).toBe(302)
      expect(response.headers.get('Location'), pathname).toBe('/account/limits_trial')
    }
    expect(
      (await server.post(`${base(cardId)}/create`, { title: 'Hi', body: 'There' }, owner.cookie)).headers.get(
        'Location',
      ),
    ).toBe('/account/limits_trial')
    expect((await server.post(`${base(cardId)}/confirm/${draft}`, {}, owner.cookie)).headers.get('Location')).toBe(
      '/account/limits_trial',
    )
    expect((await server.get(`${base(cardId)}/history`, owner.cookie)).status).toBe(200)
    expect((await server.get(`${base(cardId)}/confirm/${sent}`, owner.cookie)).status).toBe(200)

    // Additional quota opens the gate again.
    await sql(`update subscriptions set additional_quota = 1 where user_id = :id`, { id: owner.id })
    expect((await server.get(`${base(cardId)}/create`, owner.cookie)).status).toBe(200)
  })
})

describe('confirm and send', () => {
  test('with no holder subscribed, Send is refused with 409 and the message stays a draft', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const id = await createDraft(owner.cookie, cardId)
    const response = await server.post(`${base(cardId)}/confirm/${id}`, {}, owner.cookie)
    expect(response.status).toBe(409)
    expect(await pageText(response)).toContain('Nobody can receive a message from this card yet')
    expect(await sql(`select status from notifications where id = :id`, { id })).toEqual([{ status: 'draft' }])
  })

  test('Send queues the message, takes one from this month’s quota, and the page then shows its progress', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    await addSubscriber(cardId)
    await addSubscriber(cardId)
    const id = await createDraft(owner.cookie, cardId)
    expect(await pageText(await server.get(`${base(cardId)}/confirm/${id}`, owner.cookie))).toContain(
      'Will reach 2 devices',
    )

    const sent = await server.post(`${base(cardId)}/confirm/${id}`, {}, owner.cookie)
    expect(sent.status).toBe(302)
    expect(sent.headers.get('Location')).toBe(`${base(cardId)}/confirm/${id}`)
    expect(await sql(`select status, quota_source, recipients from notifications where id = :id`, { id })).toEqual([
      { status: 'queued', quota_source: 'monthly', recipients: 2 },
    ])
    const page = await pageText(await server.get(`${base(cardId)}/confirm/${id}`, owner.cookie))
    expect(page).toContain('queued')
    expect(page).toMatch(/<progress[^>]*max="100"[^>]*value="0"/)
    expect(page).toMatch(/Pending<\/dt><dd[^>]*>2<\/dd>/)
    expect(page).toMatch(/Sent<\/dt><dd[^>]*>0<\/dd>/)
    expect(page).toContain('Refresh')
    expect(mainOf(page)).not.toMatch(/>Send<\/button>/)
    // Quota used +1; sending again (a resubmitted form) sends nothing more.
    expect(await pageText(await server.get(base(cardId), owner.cookie))).toContain('1 of 10 messages sent')
    expect((await server.post(`${base(cardId)}/confirm/${id}`, {}, owner.cookie)).status).toBe(302)
    expect(await pageText(await server.get(base(cardId), owner.cookie))).toContain('1 of 10 messages sent')
    // A sent message cannot be edited: the composer leads back to its progress.
    expect((await server.get(`${base(cardId)}/create?draft=${id}`, owner.cookie)).headers.get('Location')).toBe(
      `${base(cardId)}/confirm/${id}`,
    )
  })

  test('with this month’s quota spent: refused with NO_QUOTA_LEFT, then the additional quota pays', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    await addSubscriber(cardId)
    await fillMonthlyQuota(owner.id, cardId)
    const id = await createDraft(owner.cookie, cardId)
    const confirm = await pageText(await server.get(`${base(cardId)}/confirm/${id}`, owner.cookie))
    expect(confirm).toContain('10 of 10 messages')
    expect(confirm).toContain(NO_QUOTA_LEFT)
    const refused = await server.post(`${base(cardId)}/confirm/${id}`, {}, owner.cookie)
    expect(refused.status).toBe(403)
    expect(await pageText(refused)).toContain(NO_QUOTA_LEFT)
    expect(await sql(`select status from notifications where id = :id`, { id })).toEqual([{ status: 'draft' }])

    await sql(`update subscriptions set additional_quota = 2 where user_id = :id`, { id: owner.id })
    expect((await server.post(`${base(cardId)}/confirm/${id}`, {}, owner.cookie)).status).toBe(302)
    expect(await sql(`select status, quota_source from notifications where id = :id`, { id })).toEqual([
      { status: 'queued', quota_source: 'additional' },
    ])
    expect(await sql(`select additional_quota from subscriptions where user_id = :id`, { id: owner.id })).toEqual([
      { additional_quota: 1 },
    ])
  })
})

describe('JSON calls', () => {
  test('confirm data: the message with its progress, the reach and the quota; owner-scoped', async () => {
    const owner = await signedInOwner(server)
    const other = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    await addSubscriber(cardId)
    const id = await createDraft(owner.cookie, cardId, {
      title: 'Double stamps',
      body: 'Only today!',
      link: 'https://example.com/offer',
    })
    const url = `/api/account/${cardId}/push_notification/confirm/${id}/data`
    const draft = await server.get(url, owner.cookie)
    expect(draft.status).toBe(200)
    expect(await draft.json()).toMatchObject({
      status: 'success',
      message: expect.any(String),
      notification: {
        id,
        title: 'Double stamps',
        body: 'Only today!',
        link: 'https://example.com/offer',
        status: 'draft',
        progress: { total: 0, sent: 0, failed: 0, pending: 0, percent: 0 },
      },
      recipients: 1,
      quota: { monthlyLimit: 10, usedThisMonth: 0, monthlyLeft: 10, additionalLeft: 0, totalLeft: 10 },
    })
    expect((await server.post(`${base(cardId)}/confirm/${id}`, {}, owner.cookie)).status).toBe(302)
    const queued = await (await server.get(url, owner.cookie)).json()
    expect(queued.notification).toMatchObject({
      status: 'queued',
      progress: { total: 1, sent: 0, failed: 0, pending: 1, percent: 0 },
    })
    expect(queued.quota).toMatchObject({ usedThisMonth: 1, monthlyLeft: 9 })

    const otherCard = await createCard(other.id)
    expect((await server.get(url, other.cookie)).status).toBe(404)
    expect(
      (await server.get(`/api/account/${otherCard}/push_notification/confirm/${id}/data`, other.cookie)).status,
    ).toBe(404)
    expect(
      (await server.get(`/api/account/${cardId}/push_notification/confirm/not-a-uuid/data`, owner.cookie)).status,
    ).toBe(404)
    expect(
      (await server.get(`/api/account/${cardId}/push_notification/confirm/${crypto.randomUUID()}/data`, owner.cookie))
        .status,
    ).toBe(404)
    expect((await server.get(url)).status).toBe(401)
    expect((await server.post(url, {}, owner.cookie)).status).toBe(405)
  })

  test('confirm data per channel: a queued message splits its reach between web push and Apple Wallet', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    await addSubscriber(cardId)
    const [walletPass] = await sql<{ id: string }>(
      `insert into passes (card_id, short_code) values (:cardId, :code) returning id`,
      {
        cardId,
        code: Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join(''),
      },
    )
    await sql(`insert into apple_devices (id, push_token) values (:id, 'abcdef0123')`, { id: `dev-${cardId}` })
    await sql(`insert into apple_registrations (device_id, pass_id) values (:id, :passId)`, {
      id: `dev-${cardId}`,
      passId: walletPass!.id,
    })
    const id = await createDraft(owner.cookie, cardId)
    const url = `/api/account/${cardId}/push_notification/confirm/${id}/data`
    expect(await (await server.get(url, owner.cookie)).json()).toMatchObject({
      recipients: 2,
      reach: { web: 1, appleWallet: 1 },
      notification: { progress: { total: 0, channels: { web: { pending: 0 }, appleWallet: { pending: 0 } } } },
    })
    expect((await server.post(`${base(cardId)}/confirm/${id}`, {}, owner.cookie)).status).toBe(302)
    // No job queue here: the message stays queued, its whole reach pending on each channel.
    expect(await (await server.get(url, owner.cookie)).json()).toMatchObject({
      recipients: 2,
      reach: { web: 1, appleWallet: 1 },
      notification: {
        status: 'queued',
        progress: {
          total: 2,
          pending: 2,
          channels: { web: { sent: 0, failed: 0, pending: 1 }, appleWallet: { sent: 0, failed: 0, pending: 1 } },
        },
      },
    })
    expect(await sql(`select recipients from notifications where id = :id`, { id })).toEqual([{ recipients: 2 }])
  })

  test('template-api: all, shared, own or ids (unknown and foreign left out); bad values 400', async () => {
    const owner = await signedInOwner(server)
    const other = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const own = await ownTemplate(owner.id, 'Mine')
    const foreign = await ownTemplate(other.id, 'Theirs')
    const shared = await sharedTemplate()
    const call = (templates: string | null, cookie = owner.cookie, card = cardId) =>
      server.get(
        `/api/account/${card}/push_notification/template-api${templates === null ? '' : `?templates=${encodeURIComponent(templates)}`}`,
        cookie,
      )

    const all = await (await call('all')).json()
    expect(all.status).toBe('success')
    expect(all.templates.find((t: { id: string }) => t.id === own)).toEqual({
      id: own,
      title: 'Mine',
      body: 'Own body',
      link: null,
      shared: false,
    })
    expect(all.templates.find((t: { id: string }) => t.id === shared.id)).toMatchObject({
      title: shared.title,
      shared: true,
    })
    expect(all.templates.some((t: { id: string }) => t.id === foreign)).toBe(false)
    const sharedOnly = await (await call('shared')).json()
    expect(sharedOnly.templates.length).toBeGreaterThan(0)
    expect(sharedOnly.templates.every((t: { shared: boolean }) => t.shared)).toBe(true)
    expect((await (await call('OWN')).json()).templates.map((t: { id: string }) => t.id)).toEqual([own])
    const byId = await (await call(`${own}, ${crypto.randomUUID()},${foreign},${shared.id}`)).json()
    expect(byId.templates.map((t: { id: string }) => t.id)).toEqual([own, shared.id])

    for (const bad of [null, '', 'everything', `${own},nope`, ',']) {
      const response = await call(bad)
      expect(response.status, String(bad)).toBe(400)
      const answer = await response.json()
      expect(answer.status).toBe('error')
      expect(answer.message).toContain('templates=all, shared, own')
      expect(answer.errors.templates).toHaveLength(1)
    }
    expect((await call('all', other.cookie)).status).toBe(404)
    expect((await call('all', owner.cookie, 'not-a-uuid')).status).toBe(404)
    expect((await server.get(`/api/account/${cardId}/push_notification/template-api?templates=all`)).status).toBe(401)
  })
})
