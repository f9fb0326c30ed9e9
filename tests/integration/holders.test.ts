import crypto from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { formatLocalDate, formatLocalDateTime } from '#app/utils/local-time.ts'
import { createOwner, signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/** The holders list (/account/{cardId}/holders) and a holder's history (/account/{cardId}/holders/{passId}). */
const server = useTestServer()

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const ZONE = 'Pacific/Auckland'

async function createCard(userId: string, stampsRequired = 5) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, stamps_required) values (:userId, :slug, 'active', 'Coffee card', :stampsRequired)
     returning id`,
    { userId, slug: `holders-${crypto.randomBytes(5).toString('hex')}`, stampsRequired },
  )
  return card!.id
}

type PassInput = {
  code?: string
  stamps?: number
  redeemed?: number
  createdAt?: string
  lastVisitAt?: string
}

/** A pass with its fields set directly (times are SQL expressions). */
async function createPass(cardId: string, input: PassInput = {}) {
  const code = input.code ?? Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code, stamps, rewards_redeemed, created_at, last_visit_at)
     values (:cardId, :code, :stamps, :redeemed, ${input.createdAt ?? 'now()'}, ${input.lastVisitAt ?? 'now()'}) returning id`,
    { cardId, code, stamps: input.stamps ?? 0, redeemed: input.redeemed ?? 0 },
  )
  return { id: pass!.id, code }
}

async function page(pathname: string, cookie: string, status = 200) {
  const response = await server.get(pathname, cookie)
  const html = await pageText(response)
  expect(response.status, `${pathname}: ${html.slice(0, 300)}`).toBe(status)
  return html
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()

/** The table's rows, each its cells as text. */
function tableRows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? ''
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((cell) => text(cell[1]!)),
  )
}
const codes = (html: string) => tableRows(html).map((row) => row[0])

/** The Next / Previous / First page links' addresses. */
function pagerLink(html: string, name: 'Next 50' | 'Previous' | 'First page') {
  const nav = /<nav aria-label="Pages"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? ''
  return new RegExp(`<a[^>]*href="([^"]+)"[^>]*>${name}</a>`).exec(nav)?.[1]
}

describe('the holders list', () => {
  test('every column, in the owner’s time zone, with each way a holder is reached', async () => {
    const owner = await signedInOwner(server)
    await sql(`update users set time_zone = :zone where id = :id`, { zone: ZONE, id: owner.id })
    const cardId = await createCard(owner.id, 5)
    const both = await createPass(cardId, {
      code: 'WEBGG234',
      stamps: 4,
      redeemed: 2,
      createdAt: `'2026-01-10T11:30:00Z'`,
      lastVisitAt: `'2026-03-01T10:15:00Z'`,
    })
    const apple = await createPass(cardId, { code: 'APPLE234', stamps: 5, lastVisitAt: `'2026-02-01T00:00:00Z'` })
    const none = await createPass(cardId, { code: 'NNNE2345', stamps: 0, lastVisitAt: `'2026-01-01T00:00:00Z'` })
    await sql(
      `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values (:id, 'https://fcm.googleapis.com/fcm/send/x', 'k', 'a')`,
      { id: both.id },
    )
    await sql(`insert into google_wallet_objects (pass_id, card_id) values (:id, :cardId)`, { id: both.id, cardId })
    await sql(`insert into apple_devices (id, push_token) values (:device, 'ab12')`, { device: `dev-${apple.id}` })
    await sql(`insert into apple_registrations (device_id, pass_id) values (:device, :id)`, {
      device: `dev-${apple.id}`,
      id: apple.id,
    })
    // A Google pass deleted on Google's side reaches nobody.
    await sql(`insert into google_wallet_objects (pass_id, card_id, state) values (:id, :cardId, 'gone')`, {
      id: none.id,
      cardId,
    })
    // What holders gave (issue 34): a name, or else an e-mail, or else a phone, names them in the list.
    await sql(
      `insert into holder_profiles (pass_id, card_id, name, email, phone) values
         (:both, :cardId, 'Lena Vogel', 'lena@example.com', null), (:apple, :cardId, null, null, '+4930901820')`,
      { both: both.id, apple: apple.id, cardId },
    )

    const html = await page(`/account/${cardId}/holders`, owner.cookie)
    expect(html).toContain('<title>Holders — Stampwise</title>')
    expect(text(html)).toContain('3 holders in all')
    expect(tableRows(html)).toEqual([
      [
        'WEBGG234',
        'Lena Vogel',
        formatLocalDate(new Date('2026-01-10T11:30:00Z'), ZONE),
        formatLocalDateTime(new Date('2026-03-01T10:15:00Z'), ZONE),
        '4 of 5',
        '2',
        '2',
        'Web push, Google Wallet',
      ],
      ['APPLE234', '+49 30 901820', expect.any(String), expect.any(String), '5 of 5', '1', '0', 'Apple Wallet'],
      ['NNNE2345', '—', expect.any(String), expect.any(String), '0 of 5', '0', '0', 'None'],
    ])
    // Auckland is 13 hours ahead in January: joined on the 11th there.
    expect(tableRows(html)[0]!.slice(2, 4)).toEqual(['11 Jan 2026', '1 Mar 2026, 23:15'])
    expect(html).toContain(`href="/account/${cardId}/holders/${both.id}"`)
  })

  test('filters, search by short code and both orders; a query the form could not send is a 400 with a message', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id, 5)
    await createPass(cardId, { code: 'QUEST234', stamps: 1, lastVisitAt: `now() - interval '31 days'` })
    await createPass(cardId, { code: 'RECENT23', stamps: 2, lastVisitAt: `now() - interval '29 days'` })
    await createPass(cardId, { code: 'ALMST234', stamps: 4, lastVisitAt: `now() - interval '2 days'` })
    await createPass(cardId, { code: 'EARNED23', stamps: 5, lastVisitAt: `now() - interval '3 days'` })
    await createPass(cardId, { code: 'EXTRA234', stamps: 7, lastVisitAt: `now() - interval '40 days'` })
    const list = (query: string, status = 200) => page(`/account/${cardId}/holders${query}`, owner.cookie, status)

    expect(codes(await list(''))).toEqual(['ALMST234', 'EARNED23', 'RECENT23', 'QUEST234', 'EXTRA234'])
    expect(codes(await list('?sort=stamps'))).toEqual(['EXTRA234', 'EARNED23', 'ALMST234', 'RECENT23', 'QUEST234'])
    expect(codes(await list('?filter=inactive'))).toEqual(['QUEST234', 'EXTRA234'])
    expect(codes(await list('?filter=one-to-go'))).toEqual(['ALMST234'])
    const waiting = await list('?filter=reward-waiting&sort=stamps')
    expect(codes(waiting)).toEqual(['EXTRA234', 'EARNED23'])
    expect(text(waiting)).toContain('2 holders match')

    // As read out: lower case, spaces and dashes; a prefix.
    expect(codes(await list('?q=e'))).toEqual(['EARNED23', 'EXTRA234'])
    expect(codes(await list(`?q=${encodeURIComponent(' ear-ned 2')}`))).toEqual(['EARNED23'])
    expect(codes(await list('?q=EXTRA234&filter=reward-waiting'))).toEqual(['EXTRA234'])
    expect(codes(await list('?q=Z'))).toEqual([])
    expect(text(await list('?q=Z'))).toContain('No holders match.')

    for (const [query, message] of [
      ['?q=QU1ET', 'Short codes use letters and digits only'],
      ['?q=%25', 'Short codes use letters and digits only'],
      ['?q=%27%20or%201%3D1--', 'Short codes use letters and digits only'],
      ['?q=ABCDEFGHJK', 'A short code has 8 characters'],
      [`?q=${'A'.repeat(500)}`, 'A short code has 8 characters'],
      ['?filter=everyone', 'Choose a filter from the list'],
      ['?sort=name', 'Choose an order from the list'],
      ['?after=not-a-cursor', 'This page link is not valid any more'],
      ['?before=%F0%9F%98%80', 'This page link is not valid any more'],
      [`?after=${Buffer.from('last-visit|2026-02-31T00:00:00.000000Z|x').toString('base64url')}`, 'not valid'],
    ] as const) {
      const html = await list(query, 400)
      expect(text(html), query).toContain(message)
      expect(codes(html), query).toEqual([])
    }
    // A cursor of the other order would skip rows: refused too.
    const lastVisitCursor = pagerLink(await firstPageWithNext(cardId, owner.cookie), 'Next 50')!
    const cursor = new URLSearchParams(lastVisitCursor.split('?')[1]).get('after')!
    expect(text(await list(`?sort=stamps&after=${cursor}`, 400))).toContain('This page link is not valid any more')
  })

  test('keyset pages of 50 across 120 holders, in both orders: none twice, none missing, Previous goes back', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id, 5)
    // Many ties in both orders (12 visit times, 3 stamp counts), so the id decides.
    await sql(
      `insert into passes (card_id, short_code, stamps, last_visit_at)
       select :cardId, 'PG' || lpad(translate(to_hex(g), '01abcdef', 'WXYZSTUV'), 6, 'A'), g % 3,
              date_trunc('second', now()) - (g % 12) * interval '1 hour'
       from generate_series(1, 120) g`,
      { cardId },
    )
    const all = (await sql<{ short_code: string }>(`select short_code from passes where card_id = :cardId`, { cardId }))
      .map((row) => row.short_code)
      .sort()
    for (const sort of ['last-visit', 'stamps']) {
      const first = await page(`/account/${cardId}/holders?sort=${sort}`, owner.cookie)
      expect(text(first)).toContain('120 holders in all')
      expect(pagerLink(first, 'Previous')).toBeUndefined()
      const pages = [first]
      let next = pagerLink(first, 'Next 50')
      while (next) {
        if (sort === 'stamps') expect(next).toContain('sort=stamps')
        else expect(next).not.toContain('sort=')
        const html = await page(next, owner.cookie)
        pages.push(html)
        next = pagerLink(html, 'Next 50')
        expect(pages.length).toBeLessThan(5)
      }
      expect(pages.map((html) => codes(html).length)).toEqual([50, 50, 20])
      const seen = pages.flatMap(codes)
      expect(new Set(seen).size).toBe(120)
      expect([...seen].sort()).toEqual(all)
      // Previous from the third page is the second, from the second the first; First page from anywhere.
      const second = await page(pagerLink(pages[2]!, 'Previous')!, owner.cookie)
      expect(codes(second)).toEqual(codes(pages[1]!))
      const back = await page(pagerLink(second, 'Previous')!, owner.cookie)
      expect(codes(back)).toEqual(codes(first))
      expect(pagerLink(back, 'Previous')).toBeUndefined()
      expect(pagerLink(pages[2]!, 'First page')).toBe(
        `/account/${cardId}/holders${sort === 'stamps' ? '?sort=stamps' : ''}`,
      )
    }
    // The filter and the search go along with the cursor.
    const filtered = await page(`/account/${cardId}/holders?filter=one-to-go&q=PG`, owner.cookie)
    expect(text(filtered)).toContain('0 holders match')
    const searched = await page(`/account/${cardId}/holders?q=PG&sort=stamps`, owner.cookie)
    expect(pagerLink(searched, 'Next 50')).toMatch(/q=PG&sort=stamps&after=/)
  })

  test('another owner’s card, pass, and a malformed pass id are 404', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const pass = await createPass(cardId)
    const otherCard = await createCard(owner.id)
    const stranger = await signedInOwner(server)
    const foreignCard = await createCard((await createOwner()).id)
    const foreignPass = await createPass(foreignCard)
    expect((await server.get(`/account/${cardId}/holders`, stranger.cookie)).status).toBe(404)
    expect((await server.get(`/account/${cardId}/holders/${pass.id}`, stranger.cookie)).status).toBe(404)
    expect((await server.get(`/account/${foreignCard}/holders/${foreignPass.id}`, owner.cookie)).status).toBe(404)
    expect((await server.get(`/account/${cardId}/holders/${foreignPass.id}`, owner.cookie)).status).toBe(404)
    expect((await server.get(`/account/${otherCard}/holders/${pass.id}`, owner.cookie)).status).toBe(404)
    expect((await server.get(`/account/${cardId}/holders/not-a-pass`, owner.cookie)).status).toBe(404)
    expect((await server.get(`/account/not-a-card/holders`, owner.cookie)).status).toBe(404)
    expect((await server.get(`/account/${cardId}/holders/${pass.id}`, owner.cookie)).status).toBe(200)
  })
})

async function firstPageWithNext(cardId: string, cookie: string) {
  await sql(
    `insert into passes (card_id, short_code) select :cardId, 'NX' || lpad(translate(to_hex(g), '01abcdef', 'WXYZSTUV'), 6, 'A')
     from generate_series(1, 51) g`,
    { cardId },
  )
  return page(`/account/${cardId}/holders`, cookie)
}

describe('a holder’s history', () => {
  test('stamps (one undone), an undo, a redemption and the messages that reached them, each once with its channels', async () => {
    const owner = await signedInOwner(server)
    await sql(`update users set time_zone = :zone where id = :id`, { zone: ZONE, id: owner.id })
    const cardId = await createCard(owner.id, 3)
    const pass = await createPass(cardId, { code: 'HSTRY234', stamps: 1, redeemed: 1 })
    const other = await createPass(cardId)
    // In order (the insights trigger marks an undo's stamp): stamp 2, stamp 1, stamp 2 then its undo, redeem, stamp 1.
    for (const [kind, count, at] of [
      ['stamp', 2, '2026-01-05T20:00:00Z'],
      ['stamp', 1, '2026-01-06T20:00:00Z'],
      ['stamp', 2, '2026-01-07T20:00:00Z'],
      ['undo', 2, '2026-01-07T20:01:00Z'],
      ['redeem', 3, '2026-01-08T20:00:00Z'],
      ['stamp', 1, '2026-01-09T20:00:00Z'],
    ] as const) {
      await sql(
        `insert into stamp_events (pass_id, card_id, actor_id, kind, count, created_at) values (:pass, :cardId, :owner, :kind, :count, :at)`,
        { pass: pass.id, cardId, owner: owner.id, kind, count, at },
      )
    }
    const [subscription] = await sql<{ id: string }>(
      `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values (:id, 'https://fcm.googleapis.com/fcm/send/h', 'k', 'a') returning id`,
      { id: pass.id },
    )
    const [otherSubscription] = await sql<{ id: string }>(
      `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values (:id, 'https://fcm.googleapis.com/fcm/send/o', 'k', 'a') returning id`,
      { id: other.id },
    )
    const message = async (title: string, queuedAt: string, passId: string | null = null) => {
      const [row] = await sql<{ id: string }>(
        `insert into notifications (card_id, user_id, pass_id, kind, title, body, status, queued_at)
         values (:cardId, :owner, :passId, case when :passId::uuid is null then 'message' else 'stamp' end, :title, 'Body', 'done', :queuedAt)
         returning id`,
        { cardId, owner: owner.id, passId, title, queuedAt },
      )
      return row!.id
    }
    const webOnly = await message('Happy hour', '2026-01-06T01:00:00Z')
    const googleOnly = await message('Double stamps', '2026-01-07T01:00:00Z')
    const everywhere = await message('New pastries', '2026-01-08T01:00:00Z')
    const pending = await message('Still sending', '2026-01-09T01:00:00Z')
    const othersOnly = await message('Not for this holder', '2026-01-09T02:00:00Z')
    // The holder's own stamp push, sent to a browser that has since left (its delivery lost its subscription).
    const ownPush = await message('You got a stamp', '2026-01-09T20:00:05Z', pass.id)
    await sql(
      `insert into deliveries (notification_id, push_subscription_id, status) values
         (:webOnly, :sub, 'sent'), (:everywhere, :sub, 'sent'), (:pending, :sub, 'pending'),
         (:othersOnly, :otherSub, 'sent'), (:ownPush, null, 'sent')`,
      { webOnly, everywhere, pending, othersOnly, ownPush, sub: subscription!.id, otherSub: otherSubscription!.id },
    )
    await sql(
      `insert into google_wallet_updates (kind, card_id, pass_id, notification_id, status) values
         ('message', :cardId, :pass, :googleOnly, 'sent'), ('message', :cardId, :pass, :everywhere, 'sent'),
         ('message', :cardId, :otherPass, :othersOnly, 'sent')`,
      { cardId, pass: pass.id, otherPass: other.id, googleOnly, everywhere, othersOnly },
    )
    await sql(
      `insert into apple_pushes (push_token, pass_id, notification_id, status) values ('ab12', :pass, :everywhere, 'sent')`,
      {
        pass: pass.id,
        everywhere,
      },
    )

    const html = await page(`/account/${cardId}/holders/${pass.id}`, owner.cookie)
    expect(html).toContain('<title>Holder HSTRY234 — Stampwise</title>')
    const body = text(html)
    expect(body).toContain('Stamps now 1 of 3')
    expect(body).toContain('Rewards 1 earned, 1 redeemed')
    expect(body).toContain('Reached by Web push')
    const at = (iso: string) => formatLocalDateTime(new Date(iso), ZONE)
    const visits = body.slice(body.indexOf('Stamps and rewards'), body.indexOf('Messages received'))
    expect(visits).toContain(
      [
        `1 stamp ${at('2026-01-09T20:00:00Z')}`,
        `Reward redeemed ${at('2026-01-08T20:00:00Z')}`,
        `Stamp undone ${at('2026-01-07T20:01:00Z')}`,
        `2 stamps undone ${at('2026-01-07T20:00:00Z')}`,
        `1 stamp ${at('2026-01-06T20:00:00Z')}`,
        `2 stamps ${at('2026-01-05T20:00:00Z')}`,
      ].join(' '),
    )
    // In Auckland the first stamp was on the 6th, at 09:00.
    expect(at('2026-01-05T20:00:00Z')).toBe('6 Jan 2026, 09:00')
    const messages = body.slice(body.indexOf('Messages received'))
    expect(messages).toContain(
      [
        `You got a stamp automatic ${at('2026-01-09T20:00:05Z')} · Web push`,
        `New pastries ${at('2026-01-08T01:00:00Z')} · Web push, Apple Wallet, Google Wallet`,
        `Double stamps ${at('2026-01-07T01:00:00Z')} · Google Wallet`,
        `Happy hour ${at('2026-01-06T01:00:00Z')} · Web push`,
      ].join(' '),
    )
    expect(messages).not.toContain('Still sending')
    expect(messages).not.toContain('Not for this holder')
    expect(body).not.toContain('older ones are not shown')

    // The list links to it.
    const list = await page(`/account/${cardId}/holders?q=HSTRY`, owner.cookie)
    expect(list).toContain(`href="/account/${cardId}/holders/${pass.id}"`)
  })

  test('the newest 200 events are shown, and the page says there are more', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id, 20)
    const pass = await createPass(cardId, { code: 'MANY2345' })
    await sql(
      `insert into stamp_events (pass_id, card_id, kind, count, created_at)
       select :pass, :cardId, 'stamp', 1, now() - g * interval '1 minute' from generate_series(1, 201) g`,
      { pass: pass.id, cardId },
    )
    const body = text(await page(`/account/${cardId}/holders/${pass.id}`, owner.cookie))
    expect(body.match(/1 stamp /g)?.length).toBe(200)
    expect(body).toContain('Showing the newest 200; older ones are not shown.')
  })
})
