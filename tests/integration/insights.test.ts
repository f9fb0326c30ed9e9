import { describe, expect, test } from 'vitest'
import { accountInsights, cardInsights } from '#app/services/insights/card-insights.server.ts'
import { createOwner, signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { recordEventAt, seedHistoryCard, seedPass } from '#tests/support/stamp-history.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/*
 * The card page's insights (issue 18, item 2; docs/product/insights-and-exports.md) against figures worked
 * out by hand for one seeded history, with a fixed clock in a time zone far from UTC. The clock: 2026-11-26 22:00
 * UTC, which is Friday 2026-11-27 11:00 in Pacific/Auckland (+13:00). The 7-day range is the local days 21–27
 * November (from 2026-11-20 11:00 UTC), the range before it 14–20 November. Stamps required: 3.
 *
 *   A joined 10 Nov. Stamp 16 Nov 10:30; 2 stamps 20 Nov 23:59 (earned: 4 d 13 h 29 min after its first stamp);
 *     redeemed 21 Nov 00:00 (the first minute of the range: 2026-11-20 11:00 UTC); stamps 23 Nov 15:00, 25 Nov 16:00.
 *   B joined 22 Nov 09:00. 3 stamps 09:05 (earned at once), redeemed 09:06; 2 stamps 27 Nov 10:00, undone a minute on.
 *   C joined 18 Nov 13:00. Stamp 18 Nov 13:10; stamps 25 Nov 12:30 and 14:00 (earned 7 d 50 min after its first).
 *   D joined 26 Nov 23:30 (local), nothing since.
 *   E joined 15 Nov, 2 stamps 22 Nov 13:00, then removed their card: the stamps stay, the holder does not.
 */
const server = useTestServer()
const NOW = new Date('2026-11-26T22:00:00Z')
const ZONE = 'Pacific/Auckland'

async function seedAucklandHistory(userId: string) {
  const card = await seedHistoryCard(userId, { stampsRequired: 3, timeZone: ZONE })
  const a = await seedPass(card.id, '2026-11-10T01:00:00Z')
  const b = await seedPass(card.id, '2026-11-21T20:00:00Z')
  const c = await seedPass(card.id, '2026-11-18T00:00:00Z')
  await seedPass(card.id, '2026-11-26T10:30:00Z')
  const e = await seedPass(card.id, '2026-11-15T00:00:00Z')
  await recordEventAt(a, 'stamp', '2026-11-15T21:30:00Z')
  await recordEventAt(c, 'stamp', '2026-11-18T00:10:00Z')
  await recordEventAt(a, 'stamp', '2026-11-20T10:59:00Z', 2)
  await recordEventAt(a, 'redeem', '2026-11-20T11:00:00Z')
  await recordEventAt(b, 'stamp', '2026-11-21T20:05:00Z', 3)
  await recordEventAt(b, 'redeem', '2026-11-21T20:06:00Z')
  await recordEventAt(e, 'stamp', '2026-11-22T00:00:00Z', 2)
  await recordEventAt(a, 'stamp', '2026-11-23T02:00:00Z')
  await recordEventAt(c, 'stamp', '2026-11-24T23:30:00Z')
  await recordEventAt(c, 'stamp', '2026-11-25T01:00:00Z')
  await recordEventAt(a, 'stamp', '2026-11-25T03:00:00Z')
  await recordEventAt(b, 'stamp', '2026-11-26T21:00:00Z', 2)
  await recordEventAt(b, 'undo', '2026-11-26T21:01:00Z', 2)
  await sql('delete from passes where id = :id', { id: e.id })
  return card
}

const figures = (items: { key: string; value: string; change: string }[]) =>
  Object.fromEntries(items.map((item) => [item.key, `${item.value} (${item.change})`]))

describe('card insights in the business’s time zone', () => {
  test('every figure of 7 days and its change against the 7 days before, worked out by hand', async () => {
    const owner = await createOwner()
    const card = await seedAucklandHistory(owner.id)
    const insights = await cardInsights({ userId: owner.id, cardId: card.id }, '7d', NOW)
    expect(insights.range).toEqual({ key: '7d', label: '7 days', first: '2026-11-21', last: '2026-11-27' })
    expect(figures(insights.items)).toEqual({
      newHolders: '2 (+100%)', // B, D; before: C (E is gone)
      activeHolders: '3 (+50%)', // A, B, C (E is gone); before: A, C
      stamps: '9 (+125%)', // A 2, B 3 (2 undone), C 2, E 2; before: A 3, C 1
      rewardsEarned: '2 (+100%)', // B, C; before: A (at 23:59 on the range's eve)
      rewardsRedeemed: '2 (up from 0)', // A at 00:00, B
      redemptionRate: '100% (+100 pts)',
      returningRate: '33% (\u221217 pts)', // A of A, B, C; before: A of A, C
      timeToReward: '3.5 days (\u22121 day)', // median of 0 and 7 d 50 min; before: 4 d 13 h 29 min
    })
  })

  test('stamps and new holders per local day, and visits by local weekday and hour', async () => {
    const owner = await createOwner()
    const card = await seedAucklandHistory(owner.id)
    const { days, hours } = await cardInsights({ userId: owner.id, cardId: card.id }, '7d', NOW)
    expect(days).toEqual([
      { day: '2026-11-21', stamps: 0, newHolders: 0 },
      { day: '2026-11-22', stamps: 5, newHolders: 1 },
      { day: '2026-11-23', stamps: 1, newHolders: 0 },
      { day: '2026-11-24', stamps: 0, newHolders: 0 },
      { day: '2026-11-25', stamps: 3, newHolders: 0 },
      { day: '2026-11-26', stamps: 0, newHolders: 1 },
      { day: '2026-11-27', stamps: 0, newHolders: 0 },
    ])
    // Monday = 0. The undone stamp on Friday is no visit.
    expect(hours.sort((x, y) => x.weekday - y.weekday || x.hour - y.hour)).toEqual([
      { weekday: 0, hour: 15, visits: 1 },
      { weekday: 2, hour: 12, visits: 1 },
      { weekday: 2, hour: 14, visits: 1 },
      { weekday: 2, hour: 16, visits: 1 },
      { weekday: 5, hour: 0, visits: 1 },
      { weekday: 6, hour: 9, visits: 2 },
      { weekday: 6, hour: 13, visits: 1 },
    ])
  })

  test('30 days and 12 months hold the whole history; the range before is empty', async () => {
    const owner = await createOwner()
    const card = await seedAucklandHistory(owner.id)
    for (const range of ['30d', '12m'] as const) {
      const insights = await cardInsights({ userId: owner.id, cardId: card.id }, range, NOW)
      expect(figures(insights.items), range).toMatchObject({
        newHolders: '4 (up from 0)',
        activeHolders: '3 (up from 0)',
        stamps: '13 (up from 0)',
        rewardsEarned: '3 (up from 0)',
        rewardsRedeemed: '2 (up from 0)',
        redemptionRate: '67% (—)',
        returningRate: '67% (—)', // A (4 days) and C (2 days) of A, B, C
        timeToReward: '4.6 days (—)', // median of 0, 4 d 13 h 29 min, 7 d 50 min
      })
    }
    const year = await cardInsights({ userId: owner.id, cardId: card.id }, '12m', NOW)
    expect(year.range).toMatchObject({ first: '2025-11-28', last: '2026-11-27' })
    expect(year.days).toHaveLength(365)
  })

  test('the same instants fall on other days in Pacific/Honolulu (−10:00)', async () => {
    const owner = await createOwner()
    const card = await seedHistoryCard(owner.id, { timeZone: 'Pacific/Honolulu' })
    const pass = await seedPass(card.id, '2026-11-20T09:00:00Z') // 19 Nov 23:00 in Honolulu
    await recordEventAt(pass, 'stamp', '2026-11-20T09:59:00Z') // 19 Nov 23:59
    await recordEventAt(pass, 'stamp', '2026-11-20T10:00:00Z', 2) // 20 Nov 00:00
    const { days } = await cardInsights({ userId: owner.id, cardId: card.id }, '7d', new Date('2026-11-21T12:00:00Z'))
    expect(days.slice(-3)).toEqual([
      { day: '2026-11-19', stamps: 1, newHolders: 1 },
      { day: '2026-11-20', stamps: 2, newHolders: 0 },
      { day: '2026-11-21', stamps: 0, newHolders: 0 },
    ])
  })

  test('the account home sums every card of the owner and nobody else’s', async () => {
    const owner = await createOwner()
    await seedAucklandHistory(owner.id)
    const second = await seedHistoryCard(owner.id)
    const pass = await seedPass(second.id, '2026-11-01T00:00:00Z')
    await recordEventAt(pass, 'stamp', '2026-11-26T00:00:00Z', 2)
    await seedAucklandHistory((await createOwner()).id)
    const { items } = await accountInsights(owner.id, ZONE, NOW)
    expect(figures(items)).toEqual({
      newHolders: '5 (up from 0)', // A, B, C, D and the second card's (E is gone)
      activeHolders: '4 (up from 0)',
      stamps: '15 (up from 0)',
      rewardsRedeemed: '2 (up from 0)',
    })
  })

  test('another owner’s card counts nothing', async () => {
    const owner = await createOwner()
    const card = await seedAucklandHistory(owner.id)
    const stranger = await createOwner()
    const insights = await cardInsights({ userId: stranger.id, cardId: card.id }, '30d', NOW)
    expect(insights.items.find((item) => item.key === 'stamps')?.value).toBe('0')
    expect(insights.days.every((day) => day.stamps === 0 && day.newHolders === 0)).toBe(true)
  })
})

describe('the card page', () => {
  const page = async (path: string, cookie: string) => {
    const response = await server.get(path, cookie)
    return { status: response.status, html: await pageText(response) }
  }

  test('shows the figures, the chart, the heat map and the range switch; 30 days unless asked', async () => {
    const owner = await signedInOwner(server)
    const card = await seedHistoryCard(owner.id, { timeZone: ZONE })
    const pass = await seedPass(card.id, new Date(Date.now() - 3 * 86_400_000).toISOString())
    await recordEventAt(pass, 'stamp', new Date(Date.now() - 2 * 86_400_000).toISOString(), 2)
    const { status, html } = await page(`/account/${card.id}`, owner.cookie)
    expect(status).toBe(200)
    expect(html).toMatch(/<dt[^>]*>Stamps<\/dt><dd class="insight-figure__value">2<\/dd>/)
    expect(html).toMatch(/<dt[^>]*>New holders<\/dt><dd class="insight-figure__value">1<\/dd>/)
    expect(html).toContain('Last 30 days: 2 stamps and 1 new holders')
    expect(html).toContain('days in Pacific/Auckland')
    expect(html).toMatch(/aria-current="page"[^>]*>30 days</)
    expect(html).toContain('Visits by weekday and hour (Pacific/Auckland), last 30 days')
    for (const link of ['holders', 'export/holders.csv', 'export/stamps.csv']) {
      expect(html).toContain(`href="/account/${card.id}/${link}"`)
    }
    const week = await page(`/account/${card.id}?range=7d`, owner.cookie)
    expect(week.status).toBe(200)
    expect(week.html).toMatch(/aria-current="page"[^>]*>7 days</)
    expect(week.html).toContain('Last 7 days: 2 stamps and 1 new holders')
  })

  test('12 months are drawn week by week (53 bars a phone can show), 90 days day by day', async () => {
    const owner = await signedInOwner(server)
    const card = await seedHistoryCard(owner.id, { timeZone: ZONE })
    const pass = await seedPass(card.id, new Date(Date.now() - 200 * 86_400_000).toISOString())
    await recordEventAt(pass, 'stamp', new Date(Date.now() - 100 * 86_400_000).toISOString(), 3)
    await recordEventAt(pass, 'stamp', new Date(Date.now() - 86_400_000).toISOString(), 1)
    const bars = (html: string) => html.match(/class="activity-chart__stamps"/g)?.length
    const year = await page(`/account/${card.id}?range=12m`, owner.cookie)
    expect(year.status).toBe(200)
    expect(year.html).toContain('Stamps and new holders per week')
    expect(bars(year.html)).toBeGreaterThanOrEqual(52)
    expect(bars(year.html)).toBeLessThanOrEqual(53)
    expect(year.html).toContain('Last 12 months: 4 stamps and 1 new holders')
    expect(year.html).toMatch(/<th scope="col">Week<\/th>/)
    const quarter = await page(`/account/${card.id}?range=90d`, owner.cookie)
    expect(quarter.html).toContain('Stamps and new holders per day')
    expect(bars(quarter.html)).toBe(90)
  })

  test('a range that is not one answers 400 with the default range and a line saying so', async () => {
    const owner = await signedInOwner(server)
    const card = await seedHistoryCard(owner.id)
    for (const range of ['1y', '', "7d'--", 'x'.repeat(500)]) {
      const { status, html } = await page(`/account/${card.id}?range=${encodeURIComponent(range)}`, owner.cookie)
      expect(status, range).toBe(400)
      expect(html).toContain('choose 7 days, 30 days, 90 days or 12 months. Showing 30 days.')
    }
  })
})
