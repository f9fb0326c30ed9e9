import { describe, expect, test } from 'vitest'
import {
  getNoticeSummary,
  listNotices,
  markAllNoticesRead,
  markNoticeRead,
  NOTICES_PER_PAGE,
  raiseNotice,
  UNREAD_COUNT_CAP,
} from '#models/notice.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/** The owner's notices (the header's bell): the model's queries, then the /account/notifications page over HTTP. */
const server = useTestServer()

/** `count` notices for the owner, one second apart, the last one the newest. */
async function raiseMany(userId: string, count: number, label = 'n') {
  for (let i = 1; i <= count; i++) {
    await raiseNotice({
      userId,
      kind: 'push_finished',
      message: `Notice ${label}${i}`,
      link: `/account/${i}`,
      dedupeKey: `${label}${i}`,
    })
  }
  await sql(
    `update notices set created_at = now() - make_interval(secs => 1000 - cast(substring(dedupe_key from 2) as int))
     where user_id = :userId`,
    { userId },
  )
}

describe('notice queries', () => {
  test('raiseNotice creates a notice once per dedupe key', async () => {
    const owner = await createOwner()
    const input = {
      userId: owner.id,
      kind: 'trial_ending' as const,
      message: 'Your trial ends in 3 days',
      dedupeKey: 'trial-3',
    }
    expect(await raiseNotice(input)).toBe(true)
    expect(await raiseNotice({ ...input, message: 'Again' })).toBe(false)
    const summary = await getNoticeSummary(owner.id)
    expect(summary.unreadCount).toBe(1)
    expect(summary.latest.map((notice) => notice.message)).toEqual(['Your trial ends in 3 days'])
  })

  test('the summary has the five newest notices and the unread count, without the dedupe key', async () => {
    const owner = await createOwner()
    expect(await getNoticeSummary(owner.id)).toEqual({ unreadCount: 0, latest: [] })
    await raiseMany(owner.id, 7)
    const summary = await getNoticeSummary(owner.id)
    expect(summary.unreadCount).toBe(7)
    expect(summary.latest.map((notice) => notice.message)).toEqual([
      'Notice n7',
      'Notice n6',
      'Notice n5',
      'Notice n4',
      'Notice n3',
    ])
    expect(Object.keys(summary.latest[0]!).sort()).toEqual(['createdAt', 'id', 'kind', 'link', 'message', 'read'])
    expect(summary.latest[0]).toMatchObject({ kind: 'push_finished', link: '/account/7', read: false })
    expect(new Date(summary.latest[0]!.createdAt).toISOString()).toBe(summary.latest[0]!.createdAt)

    expect(await markNoticeRead(owner.id, summary.latest[0]!.id)).toBe(true)
    const after = await getNoticeSummary(owner.id)
    expect(after.unreadCount).toBe(6)
    expect(after.latest[0]).toMatchObject({ message: 'Notice n7', read: true })
  })

  test('the summary’s unread count stops at UNREAD_COUNT_CAP; the list counts them all', async () => {
    const owner = await createOwner()
    await sql(
      `insert into notices (user_id, kind, message, dedupe_key) select :userId, 'push_finished', 'Sent', 'k' || g
       from generate_series(1, :count) g`,
      { userId: owner.id, count: UNREAD_COUNT_CAP + 5 },
    )
    expect((await getNoticeSummary(owner.id)).unreadCount).toBe(UNREAD_COUNT_CAP)
    expect((await listNotices(owner.id)).unreadCount).toBe(UNREAD_COUNT_CAP + 5)
  })

  test('the list pages 20 at a time, newest first, and clamps the page', async () => {
    const owner = await createOwner()
    await raiseMany(owner.id, NOTICES_PER_PAGE + 3)
    const first = await listNotices(owner.id)
    expect(first).toMatchObject({ page: 1, pageCount: 2, total: 23, unreadCount: 23 })
    expect(first.notices).toHaveLength(NOTICES_PER_PAGE)
    expect(first.notices[0]!.message).toBe('Notice n23')
    const second = await listNotices(owner.id, { page: 2 })
    expect(second.notices.map((notice) => notice.message)).toEqual(['Notice n3', 'Notice n2', 'Notice n1'])
    expect((await listNotices(owner.id, { page: 99 })).page).toBe(2)
    expect((await listNotices(owner.id, { page: -1 })).page).toBe(1)
    expect((await listNotices(owner.id, { page: Number.NaN })).page).toBe(1)
    const empty = await listNotices((await createOwner()).id, { page: 3 })
    expect(empty).toEqual({ notices: [], page: 1, pageCount: 1, total: 0, unreadCount: 0 })
  })

  test('marking read is scoped to the owner: owner B cannot mark A’s notice', async () => {
    const [a, b] = [await createOwner(), await createOwner()]
    await raiseMany(a.id, 2)
    await raiseMany(b.id, 1)
    const [noticeOfA] = (await getNoticeSummary(a.id)).latest
    expect(await markNoticeRead(b.id, noticeOfA!.id)).toBe(false)
    expect(await markNoticeRead(b.id, 'not-a-uuid')).toBe(false)
    expect(await markAllNoticesRead(b.id)).toBe(1)
    expect((await getNoticeSummary(a.id)).unreadCount).toBe(2)

    expect(await markNoticeRead(a.id, noticeOfA!.id)).toBe(true)
    expect(await markNoticeRead(a.id, noticeOfA!.id)).toBe(true) // already read: still found, nothing changes
    expect(await markAllNoticesRead(a.id)).toBe(1)
    expect((await getNoticeSummary(a.id)).unreadCount).toBe(0)
  })
})

describe('/account/notifications', () => {
  const post = (cookie: string, fields: Record<string, string>, search = '') =>
    server.fetch(`/account/notifications${search}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
      body: new URLSearchParams(fields),
    })

  test('a guest is sent to sign in', async () => {
    const response = await server.fetch('/account/notifications')
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe('/login?redirectTo=%2Faccount%2Fnotifications')
  })

  test('lists the owner’s notices with pages, and an empty state', async () => {
    const owner = await createOwner()
    const cookie = await logIn(server, owner.email)
    const empty = await server.fetch('/account/notifications', { headers: { Cookie: cookie } })
    expect(empty.status).toBe(200)
    const emptyHtml = await empty.text()
    expect(emptyHtml).toContain('<h1>Notifications</h1>')
    expect(emptyHtml).toContain('No notifications yet.')

    await raiseMany(owner.id, NOTICES_PER_PAGE + 1)
    const html = await (await server.fetch('/account/notifications?page=abc', { headers: { Cookie: cookie } })).text()
    expect(html).toContain('Notice n21')
    expect(html).not.toContain('Notice n1<')
    expect(html).toContain('Page 1 of 2')
    const second = await (await server.fetch('/account/notifications?page=2', { headers: { Cookie: cookie } })).text()
    expect(second).toContain('Notice n1<')
  })

  test('marks one and all read; another owner’s notice is 404; bad input is 4xx, never 500', async () => {
    const [a, b] = [await createOwner(), await createOwner()]
    await raiseMany(a.id, 2)
    const cookieA = await logIn(server, a.email)
    const cookieB = await logIn(server, b.email)
    const [newest] = (await getNoticeSummary(a.id)).latest

    expect((await post(cookieB, { intent: 'mark-read', noticeId: newest!.id })).status).toBe(404)
    expect((await post(cookieA, { intent: 'mark-read', noticeId: 'nope' })).status).toBe(404)
    expect((await post(cookieA, { intent: 'mark-read' })).status).toBe(404)
    expect((await post(cookieA, { intent: 'explode' })).status).toBe(400)
    expect((await getNoticeSummary(a.id)).unreadCount).toBe(2)

    const one = await post(cookieA, { intent: 'mark-read', noticeId: newest!.id }, '?page=1')
    expect(one.status).toBe(303)
    expect(one.headers.get('Location')).toBe('/account/notifications')
    expect((await getNoticeSummary(a.id)).unreadCount).toBe(1)

    // The bell posts from any page and comes back to it, never to another site.
    const all = await post(cookieA, { intent: 'mark-all-read', redirectTo: '//evil.example/x' })
    expect(all.headers.get('Location')).toBe('/account/notifications')
    expect((await getNoticeSummary(a.id)).unreadCount).toBe(0)
    const back = await post(cookieA, { intent: 'mark-all-read', redirectTo: '/account/help' })
    expect(back.status).toBe(303)
    expect(back.headers.get('Location')).toBe('/account/help')
    expect(back.headers.getSetCookie().some((line) => line.startsWith('__toast='))).toBe(true)
  })
})
