import crypto from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createOwner } from '#tests/support/account-owner.ts'
import { createUser, logIn, sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/**
 * /admin, the users list, over HTTP against the built app: the role check, search by the start of the e-mail and by
 * the end of its domain, the filters, the orders, the pages, hostile query strings, and the key figures.
 */
let server: Awaited<ReturnType<typeof startTestServer>>
let adminCookie: string
// Every address this file makes carries it, so searches meet only this file's users.
const tag = crypto.randomBytes(3).toString('hex')

beforeAll(async () => {
  server = await startTestServer()
  const admin = await createUser({ email: `zz-admin-${tag}@example.com` })
  await sql(`update users set role = 'admin' where id = :id`, { id: admin.id })
  adminCookie = await logIn(server, admin.email)
})
afterAll(async () => {
  await server.close()
})

/** The admin's view of `pathname`, as its text reads, after checking the status. */
async function page(pathname: string, status = 200) {
  const response = await server.get(pathname, adminCookie)
  const html = await pageText(response)
  expect(response.status, `${pathname}: ${html.slice(0, 200)}`).toBe(status)
  return html
}

/** The e-mails of the table's rows, in order. */
const emails = (html: string) =>
  [...html.matchAll(/<a [^>]*href="\/admin\/users\/[0-9a-f-]{36}"[^>]*>([^<]+)<\/a>/g)].map((match) => match[1])
const pageLine = (html: string) => /Page (\d+) of (\d+)/.exec(html)?.slice(1).map(Number)
const link = (html: string, text: 'Next →' | '← Previous') =>
  new RegExp(`<a [^>]*href="([^"]+)"[^>]*>${text}</a>`).exec(html)?.[1]
const figure = (html: string, name: string) => new RegExp(`<dt>${name}</dt><dd>([\\d,]+)</dd>`).exec(html)?.[1]

/** Users made in SQL (no password: they never sign in), with a subscription when a status is given. */
async function makeUsers(
  users: { email: string; status?: string; tier?: number | null; trialEndsIn?: string; createdAgo?: string }[],
) {
  const ids: string[] = []
  for (const user of users) {
    const [row] = await sql<{ id: string }>(
      `insert into users (email, created_at) values (:email, now() - cast(:ago as interval)) returning id`,
      { email: user.email, ago: user.createdAgo ?? '0 seconds' },
    )
    if (user.status) {
      await sql(
        `insert into subscriptions (user_id, status, tariff_id, trial_ends_at)
         values (:id, :status, (select id from tariffs where tier = :tier), now() + cast(:trialEndsIn as interval))`,
        { id: row!.id, status: user.status, tier: user.tier ?? null, trialEndsIn: user.trialEndsIn ?? '14 days' },
      )
    }
    ids.push(row!.id)
  }
  return ids
}

// First in the file: the database holds only this test's data, so the figures are known exactly.
describe('key figures', () => {
  test('count owners by status, active cards, holders, this month’s pushes and trials ending within 7 days', async () => {
    const [, , , active, cancelled] = await makeUsers([
      { email: `fig-${tag}-1@example.com`, status: 'trial', trialEndsIn: '3 days' },
      { email: `fig-${tag}-2@example.com`, status: 'trial', trialEndsIn: '10 days' },
      { email: `fig-${tag}-3@example.com`, status: 'waiting_payment', tier: 2 },
      { email: `fig-${tag}-4@example.com`, status: 'active', tier: 3 },
      { email: `fig-${tag}-5@example.com`, status: 'cancelled', tier: 1 },
      { email: `fig-${tag}-6@example.com`, status: 'ended', trialEndsIn: '-20 days' },
    ])
    const cards = await sql<{ id: string }>(
      `insert into cards (user_id, slug, status) values
         (:active, :slug1, 'active'), (:active, :slug2, 'active'), (:active, :slug3, 'draft'), (:cancelled, :slug4, 'archived')
       returning id`,
      { active, cancelled, slug1: `f1-${tag}`, slug2: `f2-${tag}`, slug3: `f3-${tag}`, slug4: `f4-${tag}` },
    )
    const cardId = cards[0]!.id
    await sql(
      `insert into passes (card_id, short_code) values (:cardId, 'AAAAAAAA'), (:cardId, 'BBBBBBBB'), (:cardId, 'CCCCCCCC')`,
      { cardId },
    )
    await sql(
      `insert into notifications (card_id, user_id, kind, title, body, status, queued_at) values
         (:cardId, :active, 'message', 'Now', 'Queued this month', 'done', now()),
         (:cardId, :active, 'message', 'Before', 'Queued last month', 'done',
          date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' - interval '1 hour'),
         (:cardId, :active, 'message', 'Draft', 'Never queued', 'draft', null),
         (:cardId, :active, 'stamp', 'Stamp', 'Automatic', 'done', now()),
         (:cardId, :active, 'reward', 'Reward', 'Automatic', 'done', now())`,
      { cardId, active },
    )

    const html = await page('/admin')
    expect(figure(html, 'Owners')).toBe('6')
    expect(html).toContain('Free trial 2 · Waiting for payment 1 · Active 1 · Cancelled 1 · Ended 1')
    expect(figure(html, 'Active cards')).toBe('2')
    expect(figure(html, 'Holders')).toBe('3')
    expect(figure(html, 'Pushes this month')).toBe('1')
    expect(html).toContain('owners’ messages, and 2 automatic')
    expect(figure(html, 'Trials ending in 7 days')).toBe('1')

    // Kept for a minute; "Count again" counts on the spot.
    await makeUsers([{ email: `fig-${tag}-7@example.com`, status: 'trial', trialEndsIn: '1 day' }])
    expect(figure(await page('/admin'), 'Owners')).toBe('6')
    expect(html).toMatch(/<a [^>]*href="\/admin\?recount"[^>]*>Count again<\/a>/)
    const recounted = await page('/admin?recount')
    expect(figure(recounted, 'Owners')).toBe('7')
    expect(figure(recounted, 'Trials ending in 7 days')).toBe('2')
  })
})

describe('who may open /admin', () => {
  test('a guest is sent to /login, and brought back', async () => {
    const response = await server.get('/admin?q=a')
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe('/login?redirectTo=%2Fadmin%3Fq%3Da')
  })

  test('an owner gets 403', async () => {
    const owner = await createOwner()
    const response = await server.get('/admin', await logIn(server, owner.email))
    expect(response.status).toBe(403)
    expect(await response.text()).not.toContain('admin-table')
  })

  test('an admin sees the users, each linked to its page, and no password hash', async () => {
    const [id] = await makeUsers([{ email: `see-${tag}@example.com`, status: 'active', tier: 2 }])
    await sql(`insert into cards (user_id, slug) values (:id, :slug)`, { id, slug: `see-${tag}` })
    const html = await page(`/admin?q=see-${tag}`)
    expect(html).toContain(`href="/admin/users/${id}"`)
    expect(html).toMatch(/<td>owner<\/td><td>Active<\/td><td>Standard<\/td><td>1<\/td><td>\d{1,2} \w+ \d{4}<\/td>/)
    expect(html).not.toMatch(/scrypt\$|password_?hash/i)
  })
})

describe('search', () => {
  test('by the start of the e-mail, whatever the case', async () => {
    await makeUsers([
      { email: `pre-${tag}-anna@alpha.test` },
      { email: `pre-${tag}-bob@beta.test` },
      { email: `xpre-${tag}@alpha.test` },
    ])
    expect(emails(await page(`/admin?q=pre-${tag}&sort=email`))).toEqual([
      `pre-${tag}-anna@alpha.test`,
      `pre-${tag}-bob@beta.test`,
    ])
    expect(emails(await page(`/admin?q=${encodeURIComponent(`  PRE-${tag.toUpperCase()}-A `)}`))).toEqual([
      `pre-${tag}-anna@alpha.test`,
    ])
    // Not a search inside the address: the start only.
    expect(emails(await page(`/admin?q=re-${tag}`))).toEqual([])
  })

  test('with @, by the end of the domain part', async () => {
    await makeUsers([
      { email: `one@${tag}.shop.test` },
      { email: `two@mail.${tag}.shop.test` },
      { email: `three@${tag}.shop.test.org` },
      { email: `${tag}.shop.test@elsewhere.test` },
    ])
    expect(emails(await page(`/admin?q=${encodeURIComponent(`@${tag}.shop.test`)}&sort=email`))).toEqual([
      `one@${tag}.shop.test`,
      `two@mail.${tag}.shop.test`,
    ])
    expect(emails(await page(`/admin?q=${encodeURIComponent(`@MAIL.${tag}.SHOP.TEST`)}`))).toEqual([
      `two@mail.${tag}.shop.test`,
    ])
    expect(emails(await page(`/admin?q=${encodeURIComponent(`@x@${tag}.shop.test`)}`))).toEqual([])
  })

  test('%, _ and \\ are plain characters, not patterns', async () => {
    await makeUsers([{ email: `lit${tag}%a@x.test` }, { email: `lit${tag}za@x.test` }, { email: `lit${tag}_b@x.test` }])
    expect(emails(await page(`/admin?q=${encodeURIComponent(`lit${tag}%`)}`))).toEqual([`lit${tag}%a@x.test`])
    expect(emails(await page(`/admin?q=${encodeURIComponent(`lit${tag}_`)}`))).toEqual([`lit${tag}_b@x.test`])
    expect(emails(await page(`/admin?q=${encodeURIComponent('%')}`))).toEqual([])
    expect(emails(await page(`/admin?q=${encodeURIComponent('@%')}`))).toEqual([])
  })
})

describe('filters', () => {
  const statuses = ['trial', 'waiting_payment', 'active', 'cancelled', 'ended'] as const

  beforeAll(async () => {
    // Plans by position: waiting_payment Basic (1), cancelled Premium (3), the others none.
    await makeUsers([
      ...statuses.map((status, index) => ({
        email: `flt-${tag}-${status}@example.com`,
        status,
        tier: index % 2 ? index : null,
      })),
      { email: `flt-${tag}-nosub@example.com` },
    ])
  })

  test.each(statuses)('subscription status %s', async (status) => {
    expect(emails(await page(`/admin?q=flt-${tag}&status=${status}`))).toEqual([`flt-${tag}-${status}@example.com`])
  })

  test('plan: a tier, or none (no plan chosen, or no subscription at all)', async () => {
    expect(emails(await page(`/admin?q=flt-${tag}&plan=basic`))).toEqual([`flt-${tag}-waiting_payment@example.com`])
    expect(emails(await page(`/admin?q=flt-${tag}&plan=standard`))).toEqual([])
    expect(emails(await page(`/admin?q=flt-${tag}&plan=premium`))).toEqual([`flt-${tag}-cancelled@example.com`])
    expect(emails(await page(`/admin?q=flt-${tag}&plan=none&sort=email`))).toEqual([
      `flt-${tag}-active@example.com`,
      `flt-${tag}-ended@example.com`,
      `flt-${tag}-nosub@example.com`,
      `flt-${tag}-trial@example.com`,
    ])
    expect(emails(await page(`/admin?q=flt-${tag}&plan=none&status=ended`))).toEqual([`flt-${tag}-ended@example.com`])
  })

  test('the form shows the values of the address', async () => {
    const html = await page(`/admin?q=flt-${tag}&status=cancelled&plan=premium&sort=oldest`)
    expect(html).toMatch(new RegExp(`<input[^>]*name="q"[^>]*value="flt-${tag}"`))
    expect(html).toMatch(/<option value="cancelled" selected="">/)
    expect(html).toMatch(/<option value="premium" selected="">/)
    expect(html).toMatch(/<option value="oldest" selected="">/)
  })
})

describe('orders', () => {
  test('newest, oldest, e-mail A–Z and Z–A', async () => {
    await makeUsers([
      { email: `ord-${tag}-b@example.com`, createdAgo: '3 days' },
      { email: `ord-${tag}-a@example.com`, createdAgo: '1 day' },
      { email: `ord-${tag}-c@example.com`, createdAgo: '2 days' },
    ])
    const order = async (sort: string) =>
      emails(await page(`/admin?q=ord-${tag}&sort=${sort}`)).map((email) => email!.at(-13))
    expect(await order('newest')).toEqual(['a', 'c', 'b'])
    expect(await order('oldest')).toEqual(['b', 'c', 'a'])
    expect(await order('email')).toEqual(['a', 'b', 'c'])
    expect(await order('email-desc')).toEqual(['c', 'b', 'a'])
  })
})

describe('pages', () => {
  const expected = (from: number, to: number) =>
    Array.from(
      { length: to - from + 1 },
      (_, index) => `pg-${tag}-${String(from + index).padStart(3, '0')}@example.com`,
    )

  beforeAll(async () => {
    // 120 users, pg-…-001 the newest.
    await sql(
      `insert into users (email, created_at)
       select 'pg-' || :tag || '-' || lpad(g::text, 3, '0') || '@example.com', now() - g * interval '1 minute'
       from generate_series(1, 120) g`,
      { tag },
    )
  })

  test('50 a page, Next and Previous, "page N of M"', async () => {
    const first = await page(`/admin?q=pg-${tag}`)
    expect(first).toContain('120 users')
    expect(pageLine(first)).toEqual([1, 3])
    expect(emails(first)).toEqual(expected(1, 50))
    expect(link(first, '← Previous')).toBeUndefined()

    const second = await page(link(first, 'Next →')!)
    expect(pageLine(second)).toEqual([2, 3])
    expect(emails(second)).toEqual(expected(51, 100))

    const third = await page(link(second, 'Next →')!)
    expect(pageLine(third)).toEqual([3, 3])
    expect(emails(third)).toEqual(expected(101, 120))
    expect(link(third, 'Next →')).toBeUndefined()

    const back = await page(link(third, '← Previous')!)
    expect(pageLine(back)).toEqual([2, 3])
    expect(emails(back)).toEqual(expected(51, 100))
    expect(link(back, '← Previous')).toBe(`/admin?q=pg-${tag}`)
  })

  test('pages keep the search, filters and order', async () => {
    const first = await page(`/admin?q=pg-${tag}&sort=email-desc`)
    expect(emails(first)).toEqual(expected(71, 120).reverse())
    const next = link(first, 'Next →')!
    expect(next).toMatch(new RegExp(`^/admin\\?q=pg-${tag}&sort=email-desc&page=2&after=[0-9a-f-]{36}$`))
    expect(emails(await page(next))).toEqual(expected(21, 70).reverse())
  })

  test('a page by number, and one past the end (the last page)', async () => {
    expect(emails(await page(`/admin?q=pg-${tag}&page=2`))).toEqual(expected(51, 100))
    const past = await page(`/admin?q=pg-${tag}&page=99`)
    expect(pageLine(past)).toEqual([3, 3])
    expect(emails(past)).toEqual(expected(101, 120))
  })

  test.each([
    ['page=abc', 1],
    ['page=-1', 1],
    ['page=0', 1],
    ['page=1.5', 1],
    ['page=1e309', 1],
    ['page=99999999999999999999', 3],
    ['page=2&after=not-an-id', 2],
    [`page=2&after=${crypto.randomUUID()}`, 2],
    [`page=3&before=${crypto.randomUUID()}`, 3],
  ])('?%s shows page %i', async (position, expectedPage) => {
    const html = await page(`/admin?q=pg-${tag}&${position}`)
    expect(pageLine(html)?.[0]).toBe(expectedPage)
    expect(emails(html)).toEqual(expected(expectedPage * 50 - 49, Math.min(120, expectedPage * 50)))
  })
})

describe('query values the form cannot send', () => {
  test.each([
    ['an unknown status', 'status=paid', 'Choose a subscription status from the list'],
    ['an unknown plan', 'plan=gold', 'Choose a plan from the list'],
    ['an unknown order', 'sort=random', 'Choose an order from the list'],
    ['a search of 255 characters', `q=${'a'.repeat(255)}`, 'Search with at most 254 characters'],
    ['a search of 5,000 characters', `q=${'%25'.repeat(5000)}`, 'Search with at most 254 characters'],
    ['a status of 5,000 characters', `status=${'x'.repeat(5000)}`, 'Choose a subscription status from the list'],
  ])('%s is a 400 with the reason', async (_name, query, message) => {
    const html = await page(`/admin?${query}`, 400)
    expect(html).toContain(message)
    expect(html).toContain('Correct the search above to see users.')
  })

  test('a field given twice counts once (the first)', async () => {
    await makeUsers([{ email: `twice-${tag}@example.com`, status: 'trial' }])
    expect(emails(await page(`/admin?q=twice-${tag}&status=trial&status=active`))).toEqual([`twice-${tag}@example.com`])
    expect(emails(await page(`/admin?q=twice-${tag}&q=nobody&status=active&status=trial`))).toEqual([])
  })

  test('odd searches answer 200 (or nothing matches), never a 500', async () => {
    const countUsers = async () => (await sql<{ count: number }>(`select count(*)::int as count from users`))[0]!.count
    const before = await countUsers()
    const odd = [
      '\\',
      "'",
      '"',
      "'; drop table users; --",
      '\u0000',
      'a\u0000b',
      '😀',
      'ünï',
      '<script>',
      '@',
      '@@',
      ' ',
      'a'.repeat(254),
      '%_%',
    ]
    for (const q of odd) {
      const response = await server.get(`/admin?q=${encodeURIComponent(q)}`, adminCookie)
      expect(response.status, JSON.stringify(q)).toBe(200)
      expect(await response.text()).not.toContain('value="<script>')
    }
    // The quote was a character of the search, not SQL.
    expect(await countUsers()).toBe(before)
  })
})
